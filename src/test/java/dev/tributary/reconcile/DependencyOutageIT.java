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

  /** The Ready condition of the table at {@code path}. */
  static JsonNode ready(Api api, String path) {
    return api.get(path)
        .body()
        .path("status")
        .path("conditions")
        .valueStream()
        .filter(c -> c.path("type").asString().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  /** Drops the table and waits until it is gone (topic, subjects and job with it). */
  static void dropAndAwaitGone(Api api, String name, String path) {
    api.sql("DROP MATERIALIZED TABLE " + name, "examples", "marketplace");
    await().atMost(Duration.ofSeconds(60)).until(() -> api.get(path).status() == 404);
  }

  /** Creates a table over the example orders; the answer must be 200 whatever is down. */
  static void create(Api api, String name) {
    Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE "
                + name
                + " FRESHNESS = INTERVAL '2' SECOND AS"
                + " SELECT order_id, price FROM examples.marketplace.orders",
            "examples",
            "marketplace");
    assertThat(created.status()).as(created.text()).isEqualTo(200);
  }

  static void awaitRunning(Api api, String path) {
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(api.get(path).body().path("status").path("phase").asString())
                    .isEqualTo("RUNNING"));
  }

  static String path(String name) {
    return "/v1/catalogs/examples/databases/marketplace/materialized-tables/" + name;
  }

  @Test
  void shouldAcceptWaitAndConvergeWhenTheRegistryComesBack() {
    Api api = new Api(port);
    registry.cut();

    create(api, "outage_orders");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(ready(api, path("outage_orders")).path("reason").asString())
                  .isEqualTo("DependencyUnavailable");
              assertThat(ready(api, path("outage_orders")).path("message").asString())
                  .startsWith("Waiting for SCHEMA_REGISTRY");
            });
    JsonNode health = api.get("/actuator/health").body().path("components");
    assertThat(health.path("schemaRegistry").path("status").asString()).isEqualTo("DOWN");

    registry.restore();

    awaitRunning(api, path("outage_orders"));
    dropAndAwaitGone(api, "outage_orders", path("outage_orders"));
  }

  @Test
  void shouldAcceptWhileFlinkIsDownAndValidateOnceItIsBack() {
    Api api = new Api(port);
    gateway.cut();
    jobManager.cut();

    create(api, "outage_flink");

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(ready(api, path("outage_flink")).path("message").asString())
                    .startsWith("Waiting for FLINK"));

    gateway.restore();
    jobManager.restore();

    awaitRunning(api, path("outage_flink"));
    dropAndAwaitGone(api, "outage_flink", path("outage_flink"));
  }
}
