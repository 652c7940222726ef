package dev.tributary.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalFlink;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TopicReader;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two real Flink clusters: the stack's own (the pool {@code default}) and a second one started here
 * (the pool {@code blue}), sharing Kafka, the registry and the savepoint storage. Tables are placed
 * by option, refused when the pool is full or unknown, and moved with their state and every row
 * once.
 */
@TributaryIT
class ComputePoolsIT {

  static final String TABLES = Api.EXAMPLE_TABLES;
  static LocalFlink blue;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  @BeforeAll
  static void startSecondCluster() throws Exception {
    blue = LocalStack.get().startAnotherFlink("flink-blue");
  }

  @AfterAll
  static void stopSecondCluster() throws Exception {
    if (blue != null) {
      blue.close();
    }
  }

  Map<String, Object> pool(int maxSlots) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("restUrl", blue.restUrl().toString());
    spec.put("sqlGatewayUrl", blue.sqlGatewayUrl().toString());
    spec.put("maxSlots", maxSlots);
    return spec;
  }

  @Test
  void shouldPlaceTablesByOptionRefuseWhatDoesNotFitAndMoveThemWithTheirStateAndEveryRowOnce() {
    Api api = new Api(port);
    String kafka = LocalStack.get().kafkaBootstrapServers();
    try {
      Answer put = api.put("/v1/compute-pools/blue", null, pool(2));
      assertThat(put.status()).as(put.text()).isEqualTo(200);
      assertThat(put.body().path("capacity").path("health").asString()).isEqualTo("UP");
      assertThat(put.body().path("capacity").path("slotsFree").asInt()).isEqualTo(2);

      api.ok(
          "CREATE MATERIALIZED TABLE pool_orders WITH ('compute-pool' = 'blue')"
              + " FRESHNESS = INTERVAL '1' SECOND"
              + " AS SELECT order_id, customer_id, price FROM orders");
      api.ok(
          "CREATE MATERIALIZED TABLE pool_totals (PRIMARY KEY (customer_id) NOT ENFORCED)"
              + " WITH ('compute-pool' = 'blue') FRESHNESS = INTERVAL '1' SECOND"
              + " AS SELECT customer_id, COUNT(*) AS orders FROM orders GROUP BY customer_id");
      for (String table : new String[] {"pool_orders", "pool_totals"}) {
        api.awaitPhase(table, "RUNNING");
        JsonNode job = api.get(TABLES + table).body().path("status").path("job");
        assertThat(job.path("computePool").asString()).isEqualTo("blue");
        assertThat(state(blue.restUrl(), job.path("id").asString())).isEqualTo("RUNNING");
        assertThat(state(LocalStack.get().flinkRestUrl(), job.path("id").asString())).isNull();
      }
      JsonNode shown = api.ok("SHOW MATERIALIZED TABLES LIKE 'pool_%'").get(0);
      assertThat(shown.path("columns").toString()).contains("compute_pool");
      assertThat(shown.path("rows").toString()).contains("blue");

      // Full: two jobs of ours there and maxSlots 2. Refused, and nothing stored.
      Answer full =
          api.sql(
              "CREATE MATERIALIZED TABLE pool_third WITH ('compute-pool' = 'blue')"
                  + " AS SELECT order_id FROM orders",
              "examples",
              "marketplace");
      assertThat(full.status()).as(full.text()).isEqualTo(409);
      assertThat(full.body().path("code").asString()).isEqualTo("POOL_FULL");
      assertThat(full.body().path("pool").asString()).isEqualTo("blue");
      assertThat(full.body().path("freeSlots").asInt()).isZero();
      assertThat(api.get(TABLES + "pool_third").status()).isEqualTo(404);

      Answer unknown =
          api.sql(
              "CREATE MATERIALIZED TABLE pool_nowhere WITH ('compute-pool' = 'green')"
                  + " AS SELECT order_id FROM orders",
              "examples",
              "marketplace");
      assertThat(unknown.status()).as(unknown.text()).isEqualTo(400);
      assertThat(unknown.body().path("detail").asString()).contains("green", "default", "blue");
      assertThat(api.get(TABLES + "pool_nowhere").status()).isEqualTo(404);

      JsonNode capacity = api.get("/v1/compute-pools/blue").body();
      assertThat(capacity.path("capacity").path("jobs").asInt())
          .as(capacity.toString())
          .isEqualTo(2);
      assertThat(capacity.path("capacity").path("slotsFree").asInt()).isZero();
      assertThat(capacity.path("tables").toString()).contains("pool_orders", "pool_totals");
      Answer refusedDelete = api.delete("/v1/compute-pools/blue", null);
      assertThat(refusedDelete.status()).as(refusedDelete.text()).isEqualTo(409);
      assertThat(refusedDelete.body().path("detail").asString()).contains("pool_totals");

      // The move: the aggregate's totals continue from its savepoint, and no order is lost or
      // written twice.
      awaitTotals(kafka, 5);
      Map<String, Long> before = totals(kafka);
      String movedFrom = jobId(api, "pool_totals");
      JsonNode plan =
          api.sql(
                  "EXPLAIN ALTER MATERIALIZED TABLE pool_totals SET ('compute-pool' = 'default')",
                  "examples",
                  "marketplace")
              .body();
      assertThat(plan.toString()).contains("on compute pool blue and restarts from it on default");
      api.ok("ALTER MATERIALIZED TABLE pool_totals SET ('compute-pool' = 'default')");
      api.ok("ALTER MATERIALIZED TABLE pool_orders SET ('compute-pool' = 'default')");
      for (String table : new String[] {"pool_orders", "pool_totals"}) {
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () -> {
                  JsonNode status = api.get(TABLES + table).body().path("status");
                  assertThat(status.path("phase").asString())
                      .as(status.toString())
                      .isEqualTo("RUNNING");
                  assertThat(status.path("job").path("computePool").asString())
                      .isEqualTo("default");
                  assertThat(
                          state(
                              LocalStack.get().flinkRestUrl(),
                              status.path("job").path("id").asString()))
                      .isEqualTo("RUNNING");
                });
        assertThat(
                api.get(TABLES + table)
                    .body()
                    .path("status")
                    .path("job")
                    .path("restoredFrom")
                    .asString())
            .as("restored from the savepoint taken on blue")
            .contains("savepoint");
      }
      assertThat(state(blue.restUrl(), movedFrom)).isEqualTo("FINISHED");
      OrderIds.awaitExactlyOnce(kafka, topic(api, "pool_orders"));
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                Map<String, Long> after = totals(kafka);
                before.forEach(
                    (customer, count) ->
                        assertThat(after.get(customer))
                            .as("the total of customer " + customer + " continues from " + count)
                            .isGreaterThanOrEqualTo(count));
                assertThat(after.values().stream().mapToLong(Long::longValue).sum())
                    .isGreaterThan(before.values().stream().mapToLong(Long::longValue).sum());
              });

      api.ok("DROP MATERIALIZED TABLE pool_orders");
      api.ok("DROP MATERIALIZED TABLE pool_totals");
      Answer deleted = api.delete("/v1/compute-pools/blue", null);
      assertThat(deleted.status()).as(deleted.text()).isEqualTo(204);
      assertThat(api.get("/v1/compute-pools/blue").status()).isEqualTo(404);
      assertThat(
              jdbc.queryForObject(
                  "SELECT count(*) FROM audit_event WHERE resource = 'compute-pool blue'"
                      + " AND outcome = 'CHANGED'",
                  Long.class))
          .isEqualTo(2);
    } finally {
      api.dropMaterializedTables("examples", "marketplace");
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  jdbc.queryForObject(
                          "SELECT count(*) FROM materialized_table WHERE name LIKE 'pool\\_%'",
                          Long.class)
                      == 0);
      // Whatever happened above, no later test may find a pool whose cluster is gone.
      jdbc.update("DELETE FROM compute_pool WHERE name = 'blue'");
    }
  }

  @Test
  void shouldRefuseToPutTheConfiguredPoolOrABadName() {
    Api api = new Api(port);
    Answer configured = api.put("/v1/compute-pools/default", null, pool(1));
    assertThat(configured.status()).as(configured.text()).isEqualTo(409);
    Answer badName = api.put("/v1/compute-pools/Blue_Pool", null, pool(1));
    assertThat(badName.status()).as(badName.text()).isEqualTo(400);
    Map<String, Object> noUrl = new HashMap<>(pool(1));
    noUrl.put("restUrl", "flink-b:8081");
    Answer badUrl = api.put("/v1/compute-pools/blue", null, noUrl);
    assertThat(badUrl.status()).as(badUrl.text()).isEqualTo(400);
    assertThat(badUrl.body().path("detail").asString()).contains("restUrl");
    JsonNode list = api.get("/v1/compute-pools").body();
    assertThat(list.get(0).path("name").asString()).isEqualTo("default");
    assertThat(list.get(0).path("configured").asBoolean()).isTrue();
    assertThat(list.get(0).path("capacity").path("health").asString()).isEqualTo("UP");
  }

  private static String jobId(Api api, String table) {
    return api.get(TABLES + table).body().path("status").path("job").path("id").asString();
  }

  private static String topic(Api api, String table) {
    return api.get(TABLES + table).body().path("status").path("topic").path("name").asString();
  }

  /**
   * The job's state on the cluster at {@code restUrl}, or null when that cluster does not know it.
   */
  private static String state(URI restUrl, String jobId) {
    JsonNode jobs =
        JsonMapper.shared()
            .readTree(
                RestClient.create(restUrl.toString())
                    .get()
                    .uri("/jobs/overview")
                    .retrieve()
                    .body(String.class))
            .path("jobs");
    for (JsonNode job : jobs) {
      if (job.path("jid").asString().equals(jobId)) {
        return job.path("state").asString();
      }
    }
    return null;
  }

  /** The newest total per customer in pool_totals' topic, read committed. */
  private static Map<String, Long> totals(String kafka) {
    Map<String, Long> totals = new HashMap<>();
    TopicReader.compacted(kafka, "pool_totals")
        .forEach(
            (key, value) ->
                totals.put(key, JsonMapper.shared().readTree(value).path("orders").asLong()));
    return totals;
  }

  private static void awaitTotals(String kafka, int customers) {
    await().atMost(Duration.ofSeconds(60)).until(() -> totals(kafka).size() >= customers);
  }
}
