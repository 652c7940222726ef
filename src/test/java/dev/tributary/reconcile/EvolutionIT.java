package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Changing a running table on the real local stack: plans, evolution without loss or duplicates,
 * refused changes that touch nothing, rollback, and ALTERs that take effect. Each test asserts on
 * the topic's content, its configs and the registry, not only on the status.
 */
@TributaryIT
class EvolutionIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  @LocalServerPort int port;
  @Autowired Topics topics;
  @Autowired SchemaRegistry registry;
  @Autowired FlinkJobs jobs;
  Api api;
  String kafka;

  /** Each test's tables go when it ends, so that jobs do not pile up on the shared cluster. */
  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", "marketplace");
  }

  @BeforeEach
  void client() {
    api = new Api(port);
    kafka = LocalStack.get().kafkaBootstrapServers();
  }

  Answer sql(String statement) {
    return api.sql(statement, "examples", "marketplace");
  }

  JsonNode ok(String statement) {
    Answer answer = sql(statement);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  JsonNode status(String name) {
    return api.get(TABLES + name).body().path("status");
  }

  /** Waits until the table runs a job other than {@code notJob}; returns the job id. */
  String awaitRunning(String name, String notJob) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              JsonNode t = api.get(TABLES + name).body();
              assertThat(t.path("status").path("phase").asString())
                  .as(t.toString())
                  .isEqualTo("RUNNING");
              assertThat(t.path("status").path("job").path("id").asString()).isNotEqualTo(notJob);
            });
    return status(name).path("job").path("id").asString();
  }

  int versions(String subject) {
    return registry.latest(subject).map(SchemaRegistry.RegisteredSchema::version).orElse(0);
  }

  List<String> orderIds(String topic) {
    return TopicReader.values(kafka, topic, Integer.MAX_VALUE, Duration.ofSeconds(3), true).stream()
        .map(v -> JsonMapper.shared().readTree(v).path("order_id").asString())
        .toList();
  }

  String lastEvent(String table, String reason) {
    return api.get(TABLES + table + "/events")
        .body()
        .path("items")
        .valueStream()
        .filter(e -> e.path("reason").asString().equals(reason))
        .reduce((a, b) -> b)
        .orElseThrow()
        .path("message")
        .asString();
  }

  @Test
  void shouldEvolveSeed001WithANewColumnAndANewSubjectVersion() throws IOException {
    ok(
        "CREATE MATERIALIZED TABLE enriched_orders (order_id STRING, customer_id INT, price DOUBLE)"
            + " FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, customer_id, price FROM examples.marketplace.orders");
    String first = awaitRunning("enriched_orders", "");
    assertThat(versions("enriched_orders-value")).isEqualTo(1);

    JsonNode result = ok(Files.readString(Path.of("src/test/resources/sql/seeds/001-06.sql")));

    assertThat(result.path(0).path("plan").path("action").asString()).isEqualTo("EVOLVE");
    assertThat(result.path(0).path("plan").path("columns").path(0).path("column").asString())
        .isEqualTo("product_id");
    awaitRunning("enriched_orders", first);
    assertThat(versions("enriched_orders-value")).isEqualTo(2);
    assertThat(jobs.job(first).orElseThrow().state()).isEqualTo(FlinkJobs.JobState.FINISHED);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        TopicReader.values(
                            kafka,
                            "enriched_orders",
                            Integer.MAX_VALUE,
                            Duration.ofSeconds(3),
                            true))
                    .anySatisfy(
                        v ->
                            assertThat(
                                    JsonMapper.shared().readTree(v).path("product_id").asString())
                                .startsWith("P-")));
  }

  @Test
  void shouldSeeEverySourceRowExactlyOnceAcrossAnEvolutionWithTheDefaultStartMode() {
    ok(
        "CREATE MATERIALIZED TABLE evolved_ids FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders");
    String first = awaitRunning("evolved_ids", "");
    sleep(Duration.ofSeconds(3));

    ok(
        "CREATE OR ALTER MATERIALIZED TABLE evolved_ids FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE order_id IS NOT"
            + " NULL");
    awaitRunning("evolved_ids", first);
    sleep(Duration.ofSeconds(3));

    assertThat(lastEvent("evolved_ids", "JobSubmitted"))
        .contains("sources start at", "savepoint offsets");
    Set<String> source = new HashSet<>(orderIds(ExampleCatalog.topic("orders")));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> sink = orderIds("evolved_ids");
              assertThat(new HashSet<>(sink)).containsAll(source);
              assertThat(sink).doesNotHaveDuplicates();
            });
  }

  @Test
  void shouldRefuseAnIncompatibleChangeAndTouchNothing() {
    ok(
        "CREATE MATERIALIZED TABLE guarded FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders");
    String job = awaitRunning("guarded", "");
    Map<String, String> configs = topics.describe("guarded").orElseThrow().configs();
    int subjectVersion = versions("guarded-value");

    Answer dropColumn =
        sql("ALTER MATERIALIZED TABLE guarded AS SELECT order_id FROM examples.marketplace.orders");
    Answer dryRun =
        api.post(
            "/v1/statements",
            Map.of(
                "statement",
                "ALTER MATERIALIZED TABLE guarded AS SELECT order_id, price, customer_id FROM"
                    + " examples.marketplace.orders",
                "catalog",
                "examples",
                "database",
                "marketplace",
                "dryRun",
                true));
    JsonNode explain =
        ok("EXPLAIN ALTER MATERIALIZED TABLE guarded SET ('kafka.retention.time' = '3 d')");

    assertThat(dropColumn.status()).as(dropColumn.text()).isEqualTo(409);
    assertThat(dropColumn.body().path("code").asString()).isEqualTo("PLAN_REJECTED");
    JsonNode plan = dropColumn.body().path("plan");
    assertThat(plan.path("columns").path(0).path("column").asString()).isEqualTo("price");
    assertThat(plan.path("columns").path(0).path("change").asString()).isEqualTo("removed");
    assertThat(plan.path("subjects").path(0).path("compatible").asBoolean()).isFalse();
    assertThat(dryRun.status()).as(dryRun.text()).isEqualTo(200);
    assertThat(dryRun.body().path("dryRun").asBoolean()).isTrue();
    assertThat(dryRun.body().path("results").path(0).path("plan").path("action").asString())
        .isEqualTo("EVOLVE");
    assertThat(dryRun.body().path("results").path(0).path("outcome").asString())
        .isEqualTo("WOULD_EVOLVE");
    assertThat(dryRun.body().path("results").path(0).path("message").asString())
        .startsWith("Dry run, nothing was stored");
    assertThat(explain.path(0).path("outcome").asString()).isEqualTo("PLANNED");
    assertThat(explain.path(0).path("plan").path("changes").toString())
        .contains("retention.ms", "259200000");

    sleep(Duration.ofSeconds(3));
    assertThat(status("guarded").path("job").path("id").asString()).isEqualTo(job);
    assertThat(jobs.job(job).orElseThrow().state()).isEqualTo(FlinkJobs.JobState.RUNNING);
    assertThat(topics.describe("guarded").orElseThrow().configs()).isEqualTo(configs);
    assertThat(versions("guarded-value")).isEqualTo(subjectVersion);
    assertThat(api.get(TABLES + "guarded/versions").body().path("items").size()).isEqualTo(1);
  }

  @Test
  void shouldRollBackToThePreviousJobFromItsSavepointWhenTheNewQueryFails() {
    ok(
        "CREATE MATERIALIZED TABLE fallback FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders");
    String first = awaitRunning("fallback", "");
    String firstPipeline = status("fallback").path("job").path("pipelineName").asString();

    ok(
        "ALTER MATERIALIZED TABLE fallback AS SELECT order_id, price, CAST(order_id AS INT) AS n"
            + " FROM examples.marketplace.orders");

    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              JsonNode d = status("fallback");
              assertThat(
                      api.get(TABLES + "fallback").body().path("status").path("phase").asString())
                  .isEqualTo("RUNNING");
              assertThat(d.path("job").path("pipelineName").asString()).isEqualTo(firstPipeline);
              assertThat(d.path("job").path("id").asString()).isNotEqualTo(first);
            });
    JsonNode versions = api.get(TABLES + "fallback/versions").body().path("items");
    assertThat(versions.size()).isEqualTo(3);
    assertThat(versions.path(1).path("outcome").asString()).isEqualTo("ROLLED_BACK");
    assertThat(versions.path(1).path("failure").asString()).contains("For input string");
    assertThat(versions.path(2).path("outcome").asString()).isEqualTo("RESTORED_1");
    assertThat(lastEvent("fallback", "JobSubmitted")).contains("restoring", "savepoint-");
  }

  @Test
  void shouldSetAndResetATopicConfigAndSettleTheGeneration() {
    ok(
        "CREATE MATERIALIZED TABLE retained FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id FROM examples.marketplace.orders");
    String job = awaitRunning("retained", "");

    ok("ALTER MATERIALIZED TABLE retained SET ('kafka.retention.time' = '2 d')");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(topics.describe("retained").orElseThrow().configs())
                    .containsEntry("retention.ms", "172800000"));
    ok("ALTER MATERIALIZED TABLE retained RESET ('kafka.retention.time')");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(topics.describe("retained").orElseThrow().configs())
                    .doesNotContainKey("retention.ms"));
    ok("ALTER MATERIALIZED TABLE retained SUSPEND; ALTER MATERIALIZED TABLE retained RESUME");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode t = api.get(TABLES + "retained").body();
              assertThat(t.path("status").path("observedGeneration").asLong())
                  .isEqualTo(t.path("metadata").path("generation").asLong());
            });
    assertThat(status("retained").path("job").path("id").asString()).isEqualTo(job);
  }

  private static long observedOf(JsonNode table) {
    return table.path("status").path("observedGeneration").asLong();
  }

  @Test
  void shouldWarnThatAnEvolvedAggregateRestartsItsTotalsAndRebuildThemFromTheBeginning() {
    ok(
        "CREATE MATERIALIZED TABLE per_customer FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " customer_id, COUNT(*) AS orders FROM examples.marketplace.orders GROUP BY"
            + " customer_id");
    String first = awaitRunning("per_customer", "");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> observedOf(api.get(TABLES + "per_customer").body()) == 1);
    String evolved =
        " MATERIALIZED TABLE per_customer FRESHNESS = INTERVAL '1' SECOND%s AS SELECT"
            + " customer_id, COUNT(*) AS orders, AVG(price) AS average FROM"
            + " examples.marketplace.orders GROUP BY customer_id";

    // The default START_MODE resumes the sources: the plan says what that does to the values.
    Answer planned = sql("EXPLAIN CREATE OR ALTER" + String.format(evolved, ""));
    assertThat(planned.status()).as(planned.text()).isEqualTo(200);
    JsonNode warning = planned.body().path("results").path(0).path("plan").path("warnings").path(0);
    assertThat(warning.path("code").asString()).isEqualTo("STATE_DISCARDED");
    assertThat(warning.path("message").asString())
        .contains("START_MODE = FROM_BEGINNING", "offsets of examples.marketplace.orders");

    // The rebuild: no warning, and every key ends with its count over all the source's rows.
    JsonNode rebuilt =
        ok("CREATE OR ALTER" + String.format(evolved, " START_MODE = FROM_BEGINNING"));
    assertThat(rebuilt.path(0).path("plan").path("warnings").isEmpty()).isTrue();
    JsonNode replay = rebuilt.path(0).path("plan").path("sourceStarts").path(0);
    assertThat(replay.path("from").asString()).contains("beginning");
    // What the rebuild reads again: the offsets the source topic holds.
    assertThat(replay.path("replayOffsets").asLong()).isPositive();

    // observedGeneration, sampled every 50 ms through the evolution: while generation 2 is not
    // observed the world may be anywhere; once it is, the old job is gone and the new one has
    // been RUNNING for the readiness window.
    long start = System.nanoTime();
    int samples = 0;
    boolean sawBehind = false;
    JsonNode t;
    while (true) {
      t = api.get(TABLES + "per_customer").body();
      samples++;
      long generation = t.path("metadata").path("generation").asLong();
      assertThat(generation).isEqualTo(2);
      if (observedOf(t) == generation) {
        break;
      }
      sawBehind = true;
      assertThat(observedOf(t)).as(t.toString()).isEqualTo(1);
      assertThat(System.nanoTime() - start)
          .as("observed within 3 min")
          .isLessThan(180_000_000_000L);
      sleep(Duration.ofMillis(50));
    }
    assertThat(sawBehind).as("observed behind while the evolution ran").isTrue();
    assertThat(samples).isGreaterThan(10);
    assertThat(t.path("status").path("phase").asString()).isEqualTo("RUNNING");
    String now = t.path("status").path("job").path("id").asString();
    assertThat(now).isNotEqualTo(first);
    assertThat(jobs.job(first).orElseThrow().state()).isNotEqualTo(FlinkJobs.JobState.RUNNING);
    assertThat(jobs.job(now).orElseThrow().state()).isEqualTo(FlinkJobs.JobState.RUNNING);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Map<String, Long> before = ordersPerCustomer();
              // Longer than the table takes to commit what it read (freshness 1 s).
              Thread.sleep(5000);
              Map<String, String> table = TopicReader.compacted(kafka, "per_customer");
              Map<String, Long> after = ordersPerCustomer();
              assertThat(table).isNotEmpty();
              for (String value : table.values()) {
                JsonNode row = JsonMapper.shared().readTree(value);
                String customer = row.path("customer_id").asString();
                assertThat(row.has("average")).as(value).isTrue();
                assertThat(row.path("orders").asLong())
                    .as("customer " + customer)
                    .isBetween(before.getOrDefault(customer, 0L), after.getOrDefault(customer, 0L));
              }
            });
  }

  private Map<String, Long> ordersPerCustomer() {
    Map<String, Long> counts = new HashMap<>();
    for (JsonNode order : ExampleCatalog.orders(kafka, Duration.ofSeconds(3))) {
      counts.merge(order.path("customer_id").asString(), 1L, Long::sum);
    }
    return counts;
  }

  @Test
  void shouldShowAnAddedComputedColumnToATableCreatedOverIt() {
    ok(
        "CREATE MATERIALIZED TABLE priced FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders");
    String job = awaitRunning("priced", "");
    ok("ALTER MATERIALIZED TABLE priced ADD (`price_with_vat` AS price * 1.21)");
    ok(
        "ALTER MATERIALIZED TABLE priced ADD (`kafka_ts` TIMESTAMP_LTZ(3) METADATA FROM"
            + " 'timestamp' VIRTUAL)");
    // One SELECT through the gateway can take most of 30 s when the whole suite runs.
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode selected =
                  ok("SELECT order_id, price, price_with_vat, kafka_ts FROM priced LIMIT 3")
                      .path(0);
              assertThat(selected.path("rows").size()).as(selected.toString()).isEqualTo(3);
              for (JsonNode row : selected.path("rows")) {
                assertThat(row.path(2).asDouble())
                    .isCloseTo(row.path(1).asDouble() * 1.21, Offset.offset(0.001));
                assertThat(row.path(3).asString()).startsWith("20");
              }
            });
    // Every row read (up to 1000), with and without the computed column: a VALUES list of CASTs
    // took Flink 57-75 s to plan and run for 1000 rows; literals take seconds.
    long plainStart = System.nanoTime();
    JsonNode plain = ok("SELECT order_id, price FROM priced").path(0).path("rows");
    Duration plainTook = Duration.ofNanos(System.nanoTime() - plainStart);
    long computedStart = System.nanoTime();
    JsonNode computed = ok("SELECT * FROM priced").path(0).path("rows");
    Duration computedTook = Duration.ofNanos(System.nanoTime() - computedStart);
    System.out.printf(
        "SELECT of %d rows: plain %d ms, with a computed column %d ms%n",
        plain.size(), plainTook.toMillis(), computedTook.toMillis());
    assertThat(computed.size()).isGreaterThanOrEqualTo(plain.size()).isGreaterThan(100);
    for (JsonNode row : computed) {
      assertThat(row.path(2).asDouble())
          .isCloseTo(row.path(1).asDouble() * 1.21, Offset.offset(0.001));
    }
    assertThat(computedTook).isLessThan(Duration.ofSeconds(15));
    ok(
        "CREATE MATERIALIZED TABLE priced_vat FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price, price_with_vat FROM priced");
    awaitRunning("priced_vat", "");

    assertThat(status("priced").path("job").path("id").asString()).isEqualTo(job);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(TopicReader.values(kafka, "priced_vat", 5, Duration.ofSeconds(3), true))
                    .isNotEmpty()
                    .allSatisfy(
                        v -> {
                          JsonNode row = JsonMapper.shared().readTree(v);
                          assertThat(row.path("price_with_vat").asDouble())
                              .isCloseTo(row.path("price").asDouble() * 1.21, Offset.offset(0.001));
                        }));
  }

  @Test
  void shouldRestartFromASavepointWithANewFreshness() {
    ok(
        "CREATE MATERIALIZED TABLE refreshed FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id FROM examples.marketplace.orders");
    String first = awaitRunning("refreshed", "");
    String pipeline = status("refreshed").path("job").path("pipelineName").asString();

    JsonNode plan =
        ok("ALTER MATERIALIZED TABLE refreshed SET FRESHNESS = INTERVAL '2' SECOND")
            .path(0)
            .path("plan");
    String second = awaitRunning("refreshed", first);

    assertThat(plan.path("jobRestarts").asBoolean()).isTrue();
    assertThat(plan.path("stateDiscarded").asBoolean()).isFalse();
    assertThat(status("refreshed").path("job").path("pipelineName").asString()).isEqualTo(pipeline);
    assertThat(status("refreshed").path("job").path("checkpointIntervalSeconds").asDouble())
        .isEqualTo(2.0);
    assertThat(second).isNotEqualTo(first);
    assertThat(lastEvent("refreshed", "JobSubmitted"))
        .as(api.get(TABLES + "refreshed/events").text())
        .contains("restoring", "savepoint-");
  }

  @Test
  void shouldOrderColumnsByANamesOnlyListAndRepartitionAnEmptyTopic() {
    ok(
        "CREATE MATERIALIZED TABLE reordered (price, order_id) FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE price < 0");
    String first = awaitRunning("reordered", "");
    assertThat(
            status("reordered")
                .path("schema")
                .path("columns")
                .valueStream()
                .map(c -> c.path("name").asString()))
        .containsExactly("price", "order_id");

    ok("ALTER MATERIALIZED TABLE reordered ADD DISTRIBUTION INTO 3 BUCKETS");

    awaitRunning("reordered", first);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(topics.describe("reordered").orElseThrow().partitions()).isEqualTo(3));
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
