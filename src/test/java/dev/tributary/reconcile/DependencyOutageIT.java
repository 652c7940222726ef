package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TcpProxy;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The Schema Registry goes away and comes back, behind a proxy in front of the real one: statements
 * are still accepted, the status says what waits on what, and the table converges.
 */
@TributaryIT
class DependencyOutageIT {

  static TcpProxy registry;
  static TcpProxy gateway;
  static TcpProxy jobManager;

  @DynamicPropertySource
  static void dependenciesBehindProxies(DynamicPropertyRegistry properties) throws IOException {
    LocalStack stack = LocalStack.get();
    var url = stack.registryUrl();
    registry = new TcpProxy(url.getPort());
    gateway = new TcpProxy(stack.sqlGatewayUrl().getPort());
    jobManager = new TcpProxy(stack.flinkRestUrl().getPort());
    properties.add(
        "tributary.schema-registry.url",
        () -> "http://127.0.0.1:" + registry.port() + url.getPath());
    properties.add("tributary.schema-registry.request-timeout", () -> "2s");
    properties.add("tributary.flink.sql-gateway-url", () -> "http://127.0.0.1:" + gateway.port());
    properties.add("tributary.flink.rest-url", () -> "http://127.0.0.1:" + jobManager.port());
    properties.add("tributary.flink.request-timeout", () -> "5s");
  }

  @AfterAll
  static void closeProxies() throws IOException {
    registry.close();
    gateway.close();
    jobManager.close();
  }

  @LocalServerPort int port;

  @Test
  void shouldAcceptWaitAndConvergeWhenTheRegistryComesBack() {
    Api api = new Api(port);
    String path = "/v1/catalogs/examples/databases/marketplace/materialized-tables/outage_orders";
    registry.cut();

    Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE outage_orders FRESHNESS = INTERVAL '2' SECOND AS"
                + " SELECT order_id, price FROM examples.marketplace.orders",
            "examples",
            "marketplace");

    assertThat(created.status()).as(created.text()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode status = api.get(path).body().path("status");
              JsonNode ready =
                  status
                      .path("details")
                      .path("conditions")
                      .valueStream()
                      .filter(c -> c.path("type").asString().equals("Ready"))
                      .findFirst()
                      .orElseThrow();
              assertThat(ready.path("reason").asString()).isEqualTo("DependencyUnavailable");
              assertThat(ready.path("message").asString())
                  .startsWith("Waiting for SCHEMA_REGISTRY");
              assertThat(status.path("phase").asString()).isNotEqualTo("RUNNING");
            });
    assertThat(
            api.get("/actuator/health")
                .body()
                .path("components")
                .path("schemaRegistry")
                .path("status")
                .asString())
        .isEqualTo("DOWN");

    registry.restore();

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(api.get(path).body().path("status").path("phase").asString())
                    .isEqualTo("RUNNING"));
    api.sql("DROP MATERIALIZED TABLE outage_orders", "examples", "marketplace");
    await().atMost(Duration.ofSeconds(60)).until(() -> api.get(path).status() == 404);
  }

  @Test
  void shouldAcceptWhileFlinkIsDownAndValidateOnceItIsBack() {
    Api api = new Api(port);
    String path = "/v1/catalogs/examples/databases/marketplace/materialized-tables/outage_flink";
    gateway.cut();
    jobManager.cut();

    Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE outage_flink FRESHNESS = INTERVAL '2' SECOND AS"
                + " SELECT order_id, price FROM examples.marketplace.orders",
            "examples",
            "marketplace");

    assertThat(created.status()).as(created.text()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              JsonNode ready =
                  api.get(path)
                      .body()
                      .path("status")
                      .path("details")
                      .path("conditions")
                      .valueStream()
                      .filter(c -> c.path("type").asString().equals("Ready"))
                      .findFirst()
                      .orElseThrow();
              assertThat(ready.path("message").asString()).startsWith("Waiting for FLINK");
            });

    gateway.restore();
    jobManager.restore();

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(api.get(path).body().path("status").path("phase").asString())
                    .isEqualTo("RUNNING"));
    api.sql("DROP MATERIALIZED TABLE outage_flink", "examples", "marketplace");
    await().atMost(Duration.ofSeconds(60)).until(() -> api.get(path).status() == 404);
  }
}
