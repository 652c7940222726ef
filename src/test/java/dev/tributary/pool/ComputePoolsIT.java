package dev.tributary.pool;

import static dev.tributary.pool.PoolClusters.dropTables;
import static dev.tributary.pool.PoolClusters.jobId;
import static dev.tributary.pool.PoolClusters.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalFlink;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TopicReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
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
      Answer put =
          shown("PUT /v1/compute-pools/blue", api.put("/v1/compute-pools/blue", null, pool(2)));
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
          shown(
              "POST /v1/statements CREATE MATERIALIZED TABLE pool_third ...",
              api.sql(
                  "CREATE MATERIALIZED TABLE pool_third WITH ('compute-pool' = 'blue')"
                      + " AS SELECT order_id FROM orders",
                  "examples",
                  "marketplace"));
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

      JsonNode capacity =
          shown("GET /v1/compute-pools/blue", api.get("/v1/compute-pools/blue")).body();
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
          shown(
                  "POST /v1/statements EXPLAIN ALTER MATERIALIZED TABLE pool_totals SET"
                      + " ('compute-pool' = 'default')",
                  api.sql(
                      "EXPLAIN ALTER MATERIALIZED TABLE pool_totals SET ('compute-pool' ="
                          + " 'default')",
                      "examples",
                      "marketplace"))
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
      dropTables(api, jdbc);
      // Whatever happened above, no later test may find a pool whose cluster is gone.
      jdbc.update("DELETE FROM compute_pool WHERE name = 'blue'");
    }
  }

  /**
   * A drain of a pool with three tables: each is moved by an ALTER of its own, the next only once
   * the last one's job runs on the target, and the drain ends when none is left.
   */
  @Test
  void shouldDrainAPoolOneTableAtATime() {
    Api api = new Api(port);
    List<String> names = List.of("pool_drain_a", "pool_drain_b", "pool_drain_c");
    try {
      Answer put = api.put("/v1/compute-pools/drained", null, pool(10));
      assertThat(put.status()).as(put.text()).isEqualTo(200);
      for (String name : names) {
        api.ok(
            "CREATE MATERIALIZED TABLE "
                + name
                + " WITH ('compute-pool' = 'drained') AS SELECT order_id FROM orders");
      }
      for (String name : names) {
        api.awaitPhase(name, "RUNNING");
      }

      Answer started =
          shown(
              "POST /v1/compute-pools/drained/drain {\"to\": \"default\"}",
              api.post("/v1/compute-pools/drained/drain", Map.of("to", "default")));
      assertThat(started.status()).as(started.text()).isEqualTo(202);
      assertThat(started.body().path("remaining").asInt()).isEqualTo(3);
      Answer placed =
          api.sql(
              "CREATE MATERIALIZED TABLE pool_drain_d WITH ('compute-pool' = 'drained')"
                  + " AS SELECT order_id FROM orders",
              "examples",
              "marketplace");
      assertThat(placed.status()).as(placed.text()).isEqualTo(409);
      assertThat(placed.body().path("detail").asString()).contains("being drained into default");
      assertThat(api.get(TABLES + "pool_drain_d").status()).isEqualTo(404);
      Answer again = api.post("/v1/compute-pools/drained/drain", Map.of("to", "default"));
      assertThat(again.status()).as(again.text()).isEqualTo(409);

      await()
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                JsonNode pool = api.get("/v1/compute-pools/drained").body();
                if (pool.path("drain").path("moved").asInt() == 2) {
                  shown("GET /v1/compute-pools/drained", api.get("/v1/compute-pools/drained"));
                }
                assertThat(pool.path("drain").isMissingNode() || pool.path("drain").isNull())
                    .as(pool.toString())
                    .isTrue();
                assertThat(pool.path("tables")).as(pool.toString()).isEmpty();
              });
      // One at a time: each ALTER was made after the job of the table before ran on default.
      Instant previousRunning = null;
      List<JobMove> moves = new ArrayList<>();
      for (String name : names) {
        JsonNode status = api.get(TABLES + name).body().path("status");
        assertThat(status.path("phase").asString()).isEqualTo("RUNNING");
        assertThat(status.path("job").path("computePool").asString()).isEqualTo("default");
        JsonNode versions = api.get(TABLES + name + "/versions").body().path("items");
        JsonNode last = versions.get(versions.size() - 1);
        assertThat(last.path("statement").asString()).contains("'compute-pool' = 'default'");
        moves.add(
            new JobMove(
                Instant.parse(last.path("createdAt").asString()),
                Instant.parse(status.path("job").path("startTime").asString())));
      }
      moves.sort(Comparator.comparing(JobMove::altered));
      for (JobMove move : moves) {
        if (previousRunning != null) {
          assertThat(move.altered()).isAfterOrEqualTo(previousRunning);
        }
        previousRunning = move.started();
      }
      assertThat(
              jdbc.queryForObject(
                  "SELECT count(*) FROM audit_event WHERE resource = 'compute-pool drained'"
                      + " AND action = 'DRAINED COMPUTE POOL'",
                  Long.class))
          .isEqualTo(1);
    } finally {
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool_drain WHERE pool = 'drained'");
      jdbc.update("DELETE FROM compute_pool WHERE name = 'drained'");
    }
  }

  /** A database's quota on a pool, of tables and of slots, refuses at submit and stores nothing. */
  @Test
  void shouldRefuseATableTheDatabasesQuotaOnThePoolDoesNotAllow() {
    Api api = new Api(port);
    String quota = "/v1/catalogs/examples/databases/marketplace/quotas/quota";
    try {
      assertThat(api.put("/v1/compute-pools/quota", null, pool(10)).status()).isEqualTo(200);
      Answer set = api.put(quota, null, Map.of("maxTables", 1));
      assertThat(set.status()).as(set.text()).isEqualTo(200);
      api.ok(
          "CREATE MATERIALIZED TABLE pool_quota_a WITH ('compute-pool' = 'quota')"
              + " AS SELECT order_id FROM orders");

      Answer second =
          api.sql(
              "CREATE MATERIALIZED TABLE pool_quota_b WITH ('compute-pool' = 'quota')"
                  + " AS SELECT order_id FROM orders",
              "examples",
              "marketplace");
      shown("POST /v1/statements CREATE MATERIALIZED TABLE pool_quota_b ...", second);
      assertThat(second.status()).as(second.text()).isEqualTo(409);
      assertThat(second.body().path("code").asString()).isEqualTo("QUOTA_EXCEEDED");
      assertThat(second.body().path("quota").asString()).isEqualTo("maxTables");
      assertThat(second.body().path("limit").asInt()).isEqualTo(1);
      assertThat(second.body().path("used").asInt()).isEqualTo(1);
      assertThat(second.body().path("requested").asInt()).isEqualTo(1);
      assertThat(api.get(TABLES + "pool_quota_b").status()).isEqualTo(404);

      // Room for tables, one slot: a second continuous job does not fit, a FULL table does.
      Map<String, Object> slots = new LinkedHashMap<>();
      slots.put("maxTables", 5);
      slots.put("maxSlots", 1);
      assertThat(api.put(quota, null, slots).status()).isEqualTo(200);
      Answer noSlot =
          api.sql(
              "CREATE MATERIALIZED TABLE pool_quota_b WITH ('compute-pool' = 'quota')"
                  + " AS SELECT order_id FROM orders",
              "examples",
              "marketplace");
      assertThat(noSlot.status()).as(noSlot.text()).isEqualTo(409);
      assertThat(noSlot.body().path("quota").asString()).isEqualTo("maxSlots");
      api.ok(
          "CREATE MATERIALIZED TABLE pool_quota_full (PRIMARY KEY (order_id) NOT ENFORCED)"
              + " WITH ('compute-pool' = 'quota')"
              + " FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = FULL AS SELECT order_id FROM orders");
      assertThat(api.get("/v1/catalogs/examples/databases/marketplace/quotas").body().toString())
          .contains("\"maxSlots\":1");

      // A FULL table's refresh is a bounded job submitted to its pool: it runs on blue's cluster.
      Answer refresh = api.post(TABLES + "pool_quota_full/refreshes", Map.of());
      assertThat(refresh.status()).as(refresh.text()).isEqualTo(202);
      JsonNode done =
          await()
              .atMost(Duration.ofSeconds(90))
              .until(
                  () -> api.get(TABLES + "pool_quota_full/refreshes").body().path("items").get(0),
                  r -> r != null && "SUCCEEDED".equals(r.path("state").asString()));
      String refreshJob = done.path("jobId").asString();
      assertThat(state(blue.restUrl(), refreshJob)).isEqualTo("FINISHED");
      assertThat(state(LocalStack.get().flinkRestUrl(), refreshJob)).isNull();

      // Room for one more table, asked for by six submits at once: one is stored, whichever
      // commits first; the others are refused, though their plans saw the room.
      Map<String, Object> oneMore = new LinkedHashMap<>();
      oneMore.put("maxTables", 3);
      assertThat(api.put(quota, null, oneMore).status()).isEqualTo(200);
      List<Answer> tables =
          race(
              api,
              i ->
                  "CREATE MATERIALIZED TABLE pool_quota_race_"
                      + i
                      + " (PRIMARY KEY (order_id) NOT ENFORCED) WITH ('compute-pool' = 'quota')"
                      + " FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = FULL AS SELECT order_id,"
                      + " customer_id FROM orders");
      assertThat(tables.stream().filter(a -> a.status() == 200).count())
          .as(tables.stream().map(Answer::text).toList().toString())
          .isEqualTo(1);
      assertThat(tables).allMatch(a -> a.status() == 200 || a.text().contains("QUOTA_EXCEEDED"));
      assertThat(
              jdbc.queryForObject(
                  "SELECT count(*) FROM materialized_table WHERE name LIKE 'pool\\_quota\\_race%'",
                  Long.class))
          .isEqualTo(1);

      // The pool's own budget, the same way: room for one more job of ours.
      Map<String, Object> noLimit = new LinkedHashMap<>();
      noLimit.put("maxTables", 20);
      assertThat(api.put(quota, null, noLimit).status()).isEqualTo(200);
      assertThat(api.put("/v1/compute-pools/quota", null, pool(2)).status()).isEqualTo(200);
      List<Answer> jobs =
          race(
              api,
              i ->
                  "CREATE MATERIALIZED TABLE pool_quota_job_"
                      + i
                      + " WITH ('compute-pool' = 'quota') AS SELECT order_id, customer_id FROM"
                      + " orders");
      assertThat(jobs.stream().filter(a -> a.status() == 200).count())
          .as(jobs.stream().map(Answer::text).toList().toString())
          .isEqualTo(1);
      assertThat(jobs).allMatch(a -> a.status() == 200 || a.text().contains("POOL_FULL"));
    } finally {
      dropTables(api, jdbc);
      api.delete(quota, null);
      jdbc.update("DELETE FROM compute_pool WHERE name = 'quota'");
    }
  }

  /**
   * Defaults: a new table that names no pool runs on its database's default pool, else its
   * catalog's. It is placed once: applying its statement again, or changing a default, moves it
   * not.
   */
  @Test
  void shouldPlaceANewTableThatNamesNoPoolOnItsDatabasesDefaultElseItsCatalogs() {
    Api api = new Api(port);
    String database = "/v1/catalogs/examples/databases/marketplace";
    String create =
        "CREATE OR ALTER MATERIALIZED TABLE pool_defaulted AS SELECT order_id FROM orders";
    try {
      assertThat(api.put("/v1/compute-pools/fallback", null, pool(10)).status()).isEqualTo(200);
      Answer unknown = api.put(database, null, Map.of("defaultComputePool", "nosuch"));
      assertThat(unknown.status()).as(unknown.text()).isEqualTo(400);
      assertThat(unknown.body().path("detail").asString()).contains("nosuch", "fallback");
      JsonNode before = api.get(database).body();
      assertThat(before.path("newTablesRunOn").asString())
          .as(before.toString())
          .isEqualTo("default");
      assertThat(before.path("from").asString()).isEqualTo("service");
      assertThat(api.get("/v1/catalogs/examples/databases/nosuch").status()).isEqualTo(404);

      Answer ofCatalog =
          shown(
              "PUT /v1/catalogs/examples {\"defaultComputePool\": \"fallback\"}",
              api.put("/v1/catalogs/examples", null, Map.of("defaultComputePool", "fallback")));
      assertThat(ofCatalog.status()).as(ofCatalog.text()).isEqualTo(200);
      JsonNode inherited = shown("GET " + database, api.get(database)).body();
      assertThat(inherited.path("newTablesRunOn").asString()).isEqualTo("fallback");
      assertThat(inherited.path("from").asString()).isEqualTo("catalog");
      assertThat(inherited.path("defaultComputePool").isNull()).isTrue();

      api.ok(create);
      api.awaitPhase("pool_defaulted", "RUNNING");
      JsonNode table = api.get(TABLES + "pool_defaulted").body();
      assertThat(table.path("status").path("job").path("computePool").asString())
          .isEqualTo("fallback");
      assertThat(state(blue.restUrl(), jobId(api, "pool_defaulted"))).isEqualTo("RUNNING");
      JsonNode ddl = api.ok("SHOW CREATE MATERIALIZED TABLE pool_defaulted").get(0);
      assertThat(ddl.path("rows").toString()).contains("'compute-pool' = 'fallback'");
      Answer refusedDelete = api.delete("/v1/compute-pools/fallback", null);
      assertThat(refusedDelete.status()).as(refusedDelete.text()).isEqualTo(409);
      // A pipeline table is placed the same way: the pool is written into its TBLPROPERTIES.
      Map<String, Object> streaming =
          Map.of("spec", Map.of("statement", "CREATE STREAMING TABLE pool_defaulted_stream"));
      Answer declared = api.put(TABLES + "pool_defaulted_stream", null, streaming);
      assertThat(declared.status()).as(declared.text()).isEqualTo(201);
      assertThat(api.get(TABLES + "pool_defaulted_stream").text())
          .contains("'compute-pool' = 'fallback'");

      // The database's own default comes first; the table already placed stays, and its
      // statement applied again (naming no pool) changes nothing.
      Answer ofDatabase = api.put(database, null, Map.of("defaultComputePool", "default"));
      assertThat(ofDatabase.status()).as(ofDatabase.text()).isEqualTo(200);
      assertThat(ofDatabase.body().path("newTablesRunOn").asString()).isEqualTo("default");
      assertThat(ofDatabase.body().path("from").asString()).isEqualTo("database");
      long generation = table.path("metadata").path("generation").asLong();
      api.ok(create);
      JsonNode after = api.get(TABLES + "pool_defaulted").body();
      assertThat(after.path("metadata").path("generation").asLong()).isEqualTo(generation);
      assertThat(after.path("status").path("job").path("computePool").asString())
          .isEqualTo("fallback");
      Answer redeclared = api.put(TABLES + "pool_defaulted_stream", null, streaming);
      assertThat(redeclared.status()).as(redeclared.text()).isEqualTo(200);
      assertThat(api.get(TABLES + "pool_defaulted_stream").text())
          .contains("'compute-pool' = 'fallback'");
      api.ok(
          "CREATE MATERIALIZED TABLE pool_defaulted_full (PRIMARY KEY (order_id) NOT ENFORCED)"
              + " FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = FULL AS SELECT order_id FROM orders");
      JsonNode rows = api.ok("SHOW MATERIALIZED TABLES LIKE 'pool_defaulted%'").get(0);
      assertThat(rows.path("rows").toString()).contains("default", "fallback");

      // The catalog's default is a default of the pool too: it is not deleted under it.
      api.ok("DROP MATERIALIZED TABLE pool_defaulted");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> api.get(TABLES + "pool_defaulted").status() == 404);
      // '*' is a choice, not a pool: each new table goes where there is most room.
      Answer choice = api.put(database, null, Map.of("defaultComputePool", "*"));
      assertThat(choice.status()).as(choice.text()).isEqualTo(200);
      assertThat(choice.body().path("newTablesRunOn").asString()).isEqualTo("*");
      Answer stillDefault = api.delete("/v1/compute-pools/fallback", null);
      assertThat(stillDefault.status()).as(stillDefault.text()).isEqualTo(409);
      assertThat(stillDefault.body().path("detail").asString())
          .contains("default pool of examples");
    } finally {
      Map<String, Object> clear = new HashMap<>();
      clear.put("defaultComputePool", null);
      api.put(database, null, clear);
      api.put("/v1/catalogs/examples", null, clear);
      api.sql("DROP TABLE IF EXISTS pool_defaulted_stream", "examples", "marketplace");
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool WHERE name = 'fallback'");
    }
  }

  /**
   * A move the new pool cannot carry out goes back: the pool {@code brittle} runs jobs with a
   * parallelism above the max parallelism the job's savepoint was taken with, so Flink cannot
   * restore it there. The table returns to {@code default}, from where it was, and runs.
   */
  @Test
  void shouldRollBackAMoveWhoseJobCannotStartOnTheNewPool() {
    Api api = new Api(port);
    try {
      Map<String, Object> brittle = new LinkedHashMap<>(pool(10));
      brittle.remove("maxSlots");
      brittle.put("parallelism", 1000);
      assertThat(api.put("/v1/compute-pools/brittle", null, brittle).status()).isEqualTo(200);
      api.ok(
          "CREATE MATERIALIZED TABLE pool_rollback FRESHNESS = INTERVAL '1' SECOND"
              + " AS SELECT order_id, price FROM orders");
      api.awaitPhase("pool_rollback", "RUNNING");
      String before = jobId(api, "pool_rollback");

      Answer move =
          api.sql(
              "ALTER MATERIALIZED TABLE pool_rollback SET ('compute-pool' = 'brittle')",
              "examples",
              "marketplace");
      assertThat(move.status()).as(move.text()).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(150))
          .untilAsserted(
              () ->
                  assertThat(api.get(TABLES + "pool_rollback/events").text())
                      .contains("MoveRolledBack"));
      api.awaitPhase("pool_rollback", "RUNNING");
      JsonNode table = api.get(TABLES + "pool_rollback").body();
      assertThat(table.path("status").path("job").path("computePool").asString())
          .isEqualTo("default");
      String after = table.path("status").path("job").path("id").asString();
      assertThat(after).isNotEqualTo(before);
      assertThat(state(LocalStack.get().flinkRestUrl(), after)).isEqualTo("RUNNING");
      assertThat(PoolClusters.liveJobsNamedFor(blue.restUrl(), api, "pool_rollback")).isZero();
      JsonNode ddl = api.ok("SHOW CREATE MATERIALIZED TABLE pool_rollback").get(0);
      assertThat(ddl.path("rows").toString()).doesNotContain("brittle");
    } finally {
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool WHERE name = 'brittle'");
    }
  }

  /**
   * A pipeline table names its pool in TBLPROPERTIES: each of its flows' jobs runs there. A pool
   * that does not exist is refused when the table is declared. The flows move with the table's
   * property (ALTER TABLE ... SET TBLPROPERTIES) and with a drain of their pool, each from its
   * savepoint, and the table's topic holds every order once.
   */
  @Test
  void shouldRunAPipelineTablesFlowsOnThePoolItsPropertiesNameAndMoveThem() {
    Api api = new Api(port);
    String kafka = LocalStack.get().kafkaBootstrapServers();
    String[] flows = {"pool_flows", "pool_flows_again"};
    try {
      assertThat(api.put("/v1/compute-pools/flows", null, pool(5)).status()).isEqualTo(200);
      Answer unknown =
          api.sql(
              "CREATE STREAMING TABLE pool_nowhere_flows (order_id STRING)"
                  + " TBLPROPERTIES ('compute-pool' = 'green')",
              "examples",
              "marketplace");
      assertThat(unknown.status()).as(unknown.text()).isEqualTo(400);
      assertThat(api.get(TABLES + "pool_nowhere_flows").status()).isEqualTo(404);

      // Two flows that split the orders between them: together, every order once.
      api.ok(
          "CREATE TABLE pool_flows (order_id STRING, price DOUBLE)"
              + " TBLPROPERTIES ('compute-pool' = 'flows', 'pipelines.trigger.interval' = '1 s')"
              + " FLOW INSERT BY NAME SELECT order_id, price FROM STREAM(orders)"
              + " WHERE price < 50");
      api.ok(
          "CREATE FLOW pool_flows_again AS INSERT INTO pool_flows BY NAME"
              + " SELECT order_id, price FROM STREAM(orders) WHERE price >= 50 OR price IS NULL");
      for (String flow : flows) {
        JsonNode job = awaitFlowOn(api, flow, "flows");
        assertThat(state(blue.restUrl(), job.path("id").asString())).isEqualTo("RUNNING");
        assertThat(state(LocalStack.get().flinkRestUrl(), job.path("id").asString())).isNull();
      }

      Answer fixed =
          api.sql(
              "ALTER TABLE pool_flows SET TBLPROPERTIES ('value.format' = 'avro')",
              "examples",
              "marketplace");
      assertThat(fixed.status()).as(fixed.text()).isEqualTo(400);
      assertThat(fixed.body().path("detail").asString()).contains("'value.format' is fixed");

      Map<String, String> movedFrom = new HashMap<>();
      for (String flow : flows) {
        movedFrom.put(flow, awaitFlowOn(api, flow, "flows").path("id").asString());
      }
      shown(
          "POST /v1/statements ALTER TABLE pool_flows SET TBLPROPERTIES ('compute-pool' ="
              + " 'default')",
          api.sql(
              "ALTER TABLE pool_flows SET TBLPROPERTIES ('compute-pool' = 'default')",
              "examples",
              "marketplace"));
      for (String flow : flows) {
        JsonNode job = awaitFlowOn(api, flow, "default");
        assertThat(job.path("restoredFrom").asString())
            .as("restored from the savepoint taken on the first pool")
            .contains("savepoint");
        assertThat(state(blue.restUrl(), movedFrom.get(flow))).isEqualTo("FINISHED");
      }
      assertThat(api.get(TABLES + "pool_flows").text()).contains("'compute-pool' = 'default'");

      // Back, then off again with a drain: one ALTER moves both flows.
      api.ok("ALTER STREAMING TABLE pool_flows SET TBLPROPERTIES ('compute-pool' = 'flows')");
      for (String flow : flows) {
        awaitFlowOn(api, flow, "flows");
      }
      Answer drain = api.post("/v1/compute-pools/flows/drain", Map.of("to", "default"));
      assertThat(drain.status()).as(drain.text()).isEqualTo(202);
      assertThat(drain.body().path("remaining").asInt()).isEqualTo(1);
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                JsonNode pool = api.get("/v1/compute-pools/flows").body();
                assertThat(pool.path("drain").isMissingNode() || pool.path("drain").isNull())
                    .as(pool.toString())
                    .isTrue();
                assertThat(pool.path("tables")).as(pool.toString()).isEmpty();
              });
      for (String flow : flows) {
        awaitFlowOn(api, flow, "default");
      }
      OrderIds.awaitExactlyOnce(kafka, topic(api, "pool_flows"));
    } finally {
      api.sql("DROP TABLE IF EXISTS pool_flows", "examples", "marketplace");
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool_drain WHERE pool = 'flows'");
      jdbc.update("DELETE FROM compute_pool WHERE name = 'flows'");
    }
  }

  /** The job of the flow (of pool_flows) once it runs on {@code pool}. */
  private static JsonNode awaitFlowOn(Api api, String flow, String pool) {
    return await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> api.get(TABLES + "pool_flows/flows/" + flow).body(),
            f ->
                "RUNNING".equals(f.path("status").path("phase").asString())
                    && pool.equals(f.path("status").path("job").path("computePool").asString())
                    && f.path("status").path("observedGeneration").asLong()
                        >= f.path("metadata").path("generation").asLong())
        .path("status")
        .path("job");
  }

  /** Six statements sent at once (the i-th made by {@code sql}), and their answers. */
  private static List<Answer> race(Api api, IntFunction<String> sql) {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService workers = Executors.newFixedThreadPool(6);
    List<CompletableFuture<Answer>> sent = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String statement = sql.apply(i);
      sent.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return api.sql(statement, "examples", "marketplace");
              },
              workers));
    }
    start.countDown();
    try {
      return sent.stream().map(CompletableFuture::join).toList();
    } finally {
      workers.shutdown();
    }
  }

  /** When a table's move was asked, and when its job on the new pool started. */
  record JobMove(Instant altered, Instant started) {}

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

  /**
   * What the docs page shows: each request and its answer, as this run got them, appended to {@code
   * target/compute-pools-transcript.txt} (docs/compute-pools.md quotes it).
   */
  private static Answer shown(String request, Answer answer) {
    try {
      Path file = Path.of("target", "compute-pools-transcript.txt");
      String body =
          answer.text() == null || answer.text().isBlank()
              ? ""
              : JsonMapper.shared()
                  .writerWithDefaultPrettyPrinter()
                  .writeValueAsString(JsonMapper.shared().readTree(answer.text()));
      Files.writeString(
          file,
          "$ " + request + "\n" + answer.status() + "\n" + body + "\n\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return answer;
  }

  private static String topic(Api api, String table) {
    return api.get(TABLES + table).body().path("status").path("topic").path("name").asString();
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
