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
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** CREATE to RUNNING, suspend, resume and drop, on the real local stack. */
@TributaryIT
class LifecycleIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  @LocalServerPort int port;
  @Autowired Topics topics;
  @Autowired SchemaRegistry registry;
  @Autowired FlinkJobs jobs;
  @Autowired ReconcileWorker worker;
  @Autowired JdbcTemplate jdbc;
  Api api;

  /** Each test's tables go when it ends, so that jobs do not pile up on the shared cluster. */
  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", "marketplace");
  }

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  JsonNode ok(String statement) {
    Answer answer = api.sql(statement, "examples", "marketplace");
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  JsonNode table(String name) {
    return api.get(TABLES + name).body();
  }

  void awaitPhase(String name, String phase) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              JsonNode t = table(name);
              assertThat(t.path("status").path("phase").asString())
                  .as(t.toString())
                  .isEqualTo(phase);
            });
  }

  @Test
  void shouldRunTheSeedExamplesVerbatimAndFillTheirTopics() throws IOException {
    for (String file : List.of("000-00.sql", "000-01.sql", "000-02.sql", "000-03.sql")) {
      ok(Files.readString(Path.of("src/test/resources/sql/seeds", file)));
    }

    for (String name :
        List.of("high_value_orders", "all_orders", "orders_avro", "customer_orders")) {
      awaitPhase(name, "RUNNING");
      JsonNode status = table(name).path("status");
      assertThat(status.path("topic").path("name").asString()).isEqualTo(name);
      assertThat(status.path("job").path("id").asString()).hasSize(32);
      SchemaRegistry.SchemaType type =
          name.equals("orders_avro")
              ? SchemaRegistry.SchemaType.AVRO
              : SchemaRegistry.SchemaType.JSON;
      assertThat(registry.latest(name + "-value"))
          .get()
          .extracting(s -> s.schema().type())
          .isEqualTo(type);
    }
    String kafka = LocalStack.get().kafkaBootstrapServers();
    List<String> highValue =
        TopicReader.values(kafka, "high_value_orders", 5, Duration.ofSeconds(60), false);
    assertThat(highValue)
        .hasSizeGreaterThanOrEqualTo(5)
        .allSatisfy(
            row ->
                assertThat(JsonMapper.shared().readTree(row).path("price").asDouble())
                    .isGreaterThan(50));
    assertThat(TopicReader.values(kafka, "customer_orders", 3, Duration.ofSeconds(60), false))
        .allSatisfy(
            row ->
                assertThat(JsonMapper.shared().readTree(row).path("customer_name").asString())
                    .isNotBlank());
    JsonNode inferred = table("all_orders").path("status").path("schema").path("columns");
    assertThat(inferred.valueStream().map(c -> c.path("name").asString()))
        .containsExactly("order_id", "customer_id", "product_id", "price", "event_time");
  }

  @Test
  void shouldSuspendAndResumeWithoutLosingOrRepeatingARow() {
    ok(
        "CREATE MATERIALIZED TABLE order_ids FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id, price FROM examples.marketplace.orders");
    awaitPhase("order_ids", "RUNNING");

    ok("ALTER MATERIALIZED TABLE order_ids SUSPEND");
    awaitPhase("order_ids", "STOPPED");
    String savepoint =
        table("order_ids").path("status").path("lastSavepoint").path("path").asString();
    assertThat(savepoint).contains("savepoint-");
    JsonNode again = ok("ALTER MATERIALIZED TABLE order_ids SUSPEND").path(0);
    assertThat(again.path("outcome").asString()).isEqualTo("UNCHANGED");
    sleep(Duration.ofSeconds(3)); // orders keep arriving while suspended
    ok("ALTER MATERIALIZED TABLE order_ids RESUME");
    awaitPhase("order_ids", "RUNNING");

    String kafka = LocalStack.get().kafkaBootstrapServers();
    List<String> source =
        TopicReader.values(
            kafka, ExampleCatalog.topic("orders"), Integer.MAX_VALUE, Duration.ofSeconds(3), false);
    Set<String> expected = new HashSet<>();
    source.forEach(o -> expected.add(JsonMapper.shared().readTree(o).path("order_id").asString()));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> sink =
                  TopicReader.values(
                      kafka, "order_ids", Integer.MAX_VALUE, Duration.ofSeconds(3), true);
              List<String> ids =
                  sink.stream()
                      .map(r -> JsonMapper.shared().readTree(r).path("order_id").asString())
                      .toList();
              assertThat(new HashSet<>(ids)).containsAll(expected);
              assertThat(ids).doesNotHaveDuplicates();
            });
  }

  @Test
  void shouldDropTheJobTopicAndSubjects() {
    ok(
        "CREATE MATERIALIZED TABLE doomed FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM examples.marketplace.orders");
    awaitPhase("doomed", "RUNNING");
    String jobId = table("doomed").path("status").path("job").path("id").asString();
    String uid = table("doomed").path("metadata").path("uid").asString();

    JsonNode drop = ok("DROP MATERIALIZED TABLE doomed").path(0);

    assertThat(drop.path("outcome").asString()).isEqualTo("REQUESTED");
    await().atMost(Duration.ofSeconds(60)).until(() -> api.get(TABLES + "doomed").status() == 404);
    assertThat(topics.describe("doomed")).isEmpty();
    assertThat(registry.latest("doomed-value")).isEmpty();
    assertThat(jobs.job(jobId).orElseThrow().state()).isEqualTo(FlinkJobs.JobState.CANCELED);
    // The history outlives the table.
    assertThat(api.get(TABLES + "doomed/versions").body().path("items").size()).isEqualTo(1);
    assertThat(
            api.get(TABLES + "doomed/events")
                .body()
                .path("items")
                .valueStream()
                .map(e -> e.path("reason").asString()))
        .contains("DropRequested", "Deleted");
    assertThat(topics.committedOffsets("tributary-" + uid)).as("consumer group").isEmpty();
    assertThat(
            api.get("/v1/catalogs/examples/databases/marketplace/materialized-tables")
                .body()
                .path("items")
                .toString())
        .doesNotContain("doomed");
  }

  /**
   * A drop that comes while the table's job is being submitted or has just started: the job is
   * cancelled all the same, and stays so. Three moments: right after the CREATE (the first pass may
   * be mid-submission), as soon as the job's id is recorded, and as soon as the table is RUNNING.
   */
  @Test
  void shouldLeaveNoJobWhenDroppedAsItsJobStarts() throws InterruptedException {
    String[] moments = {"created", "submitted", "running"};
    for (String moment : moments) {
      String name = "early_drop_" + moment;
      ok(
          "CREATE MATERIALIZED TABLE "
              + name
              + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM"
              + " examples.marketplace.orders");
      String uid = table(name).path("metadata").path("uid").asString();
      if (moment.equals("submitted")) {
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !table(name).path("status").path("job").path("id").asString().isEmpty());
      } else if (moment.equals("running")) {
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> table(name).path("status").path("phase").asString().equals("RUNNING"));
      }
      ok("DROP MATERIALIZED TABLE " + name);
      await().atMost(Duration.ofSeconds(60)).until(() -> api.get(TABLES + name).status() == 404);
      // A job that came up after its cancel would show here, so look again a little later.
      for (int look = 0; look < 2; look++) {
        if (look > 0) {
          Thread.sleep(3000);
        }
        assertThat(
                jobs.overview().stream()
                    .filter(j -> j.name().startsWith("tributary-" + uid + "-"))
                    .filter(j -> !j.state().terminal())
                    .map(j -> j.id() + " " + j.state()))
            .as("live jobs of %s, dropped when %s", name, moment)
            .isEmpty();
      }
    }
  }

  /**
   * A RUNNING table whose pass finds nothing to do is settled: no claim brings it back by time, the
   * sweep looks at it. A topic config changed behind its back is what a look finds: the sweep makes
   * the table due without touching Kafka, and the claimed pass sets the config back.
   */
  @Test
  void shouldSettleARunningTableThenSetBackATopicConfigChangedBehindItsBack() {
    ok(
        "CREATE MATERIALIZED TABLE settles WITH ('kafka.retention.time' = '7 d') AS SELECT order_id"
            + " FROM examples.marketplace.orders");
    awaitPhase("settles", "RUNNING");
    String uid = table("settles").path("metadata").path("uid").asString();
    // The pass that started the job acted, so the table is due again at the resync (30 s); the
    // test makes it due now instead, and the pass that finds nothing to do settles it.
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              jdbc.update(
                  "UPDATE materialized_table SET next_attempt_at = now() WHERE id = ?::uuid"
                      + " AND next_attempt_at > now() AND next_attempt_at < ?",
                  uid,
                  Timestamp.from(ReconcileStore.SETTLED));
              assertThat(nextAttempt(uid)).isEqualTo(ReconcileStore.SETTLED);
            });
    String jobId = table("settles").path("status").path("job").path("id").asString();

    topics.alterConfigs("settles", Map.of("retention.ms", "3600000"));
    // KRaft commits the change at the controller and the broker that answers a describe applies it
    // from the metadata log a moment later: a sweep sent at once may still see the old config. The
    // worker's own sweep may find the change first, and its pass may set the config back before
    // this test ever reads the new value; then the table is no longer settled either.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              if (!nextAttempt(uid).equals(ReconcileStore.SETTLED)) {
                return;
              }
              assertThat(topics.describe("settles").orElseThrow().configs())
                  .containsEntry("retention.ms", "3600000");
              ReconcileWorker.Sweep sweep = worker.sweep();
              assertThat(sweep.due() >= 1 || !nextAttempt(uid).equals(ReconcileStore.SETTLED))
                  .as(sweep.toString())
                  .isTrue();
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(topics.describe("settles").orElseThrow().configs())
                    .containsEntry("retention.ms", "604800000"));
    assertThat(
            api.get(TABLES + "settles/events")
                .body()
                .path("items")
                .valueStream()
                .map(e -> e.path("reason").asString()))
        .contains("TopicUpdated");
    assertThat(table("settles").path("status").path("job").path("id").asString())
        .as("the job was left alone")
        .isEqualTo(jobId);
  }

  private Instant nextAttempt(String uid) {
    return jdbc.queryForObject(
            "SELECT next_attempt_at FROM materialized_table WHERE id = ?::uuid",
            Timestamp.class,
            uid)
        .toInstant();
  }

  @Test
  void shouldKeepAnUpsertTableKeyedAndPreviewItsRows() {
    ok(
        "CREATE MATERIALIZED TABLE orders_per_customer (customer_id INT, orders BIGINT NOT NULL, PRIMARY KEY (customer_id) NOT ENFORCED)"
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT customer_id, COUNT(*) AS orders FROM examples.marketplace.orders GROUP BY customer_id");
    awaitPhase("orders_per_customer", "RUNNING");

    assertThat(topics.describe("orders_per_customer").orElseThrow().configs())
        .containsEntry("cleanup.policy", "compact");
    assertThat(registry.latest("orders_per_customer-key")).isPresent();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode preview = api.get(TABLES + "orders_per_customer/preview?limit=5").body();
              assertThat(preview.path("rows").size()).as(preview.toString()).isEqualTo(5);
              assertThat(preview.path("rows").path(0).path("value").path("orders").asLong())
                  .isPositive();
              assertThat(preview.path("rows").path(0).path("key").path("customer_id").asInt())
                  .isGreaterThanOrEqualTo(3000);
            });
  }

  @Test
  void shouldRefuseBadDefinitionsBeforeTouchingAnything() {
    topics.ensure(new Topics.TopicSpec("somebody_elses_topic", 1, Map.of()));

    Answer foreign =
        api.sql(
            "CREATE MATERIALIZED TABLE somebody_elses_topic AS SELECT order_id FROM examples.marketplace.orders",
            "examples",
            "marketplace");
    Answer mismatch =
        api.sql(
            "CREATE MATERIALIZED TABLE mismatched (order_id STRING, price INT) AS SELECT order_id, price FROM examples.marketplace.orders",
            "examples",
            "marketplace");
    Answer updating =
        api.sql(
            "CREATE MATERIALIZED TABLE unkeyed AS SELECT COUNT(*) AS n FROM examples.marketplace.orders GROUP BY customer_id",
            "examples",
            "marketplace");
    Answer unknown =
        api.sql(
            "CREATE MATERIALIZED TABLE typo AS SELECT nope FROM examples.marketplace.orders",
            "examples",
            "marketplace");

    assertThat(foreign.status()).isEqualTo(409);
    assertThat(foreign.body().path("detail").asString())
        .contains("Topic somebody_elses_topic already exists");
    assertThat(mismatch.status()).isEqualTo(400);
    assertThat(mismatch.body().path("code").asString()).isEqualTo("INVALID_QUERY");
    assertThat(mismatch.body().path("problems").path(0).asString())
        .isEqualTo("Column 'price' is declared INT but the query produces DOUBLE");
    // Grouped by a column it does not select: Flink derives no key for its rows.
    assertThat(updating.body().path("detail").asString())
        .contains("Flink derives no key")
        .contains("declare PRIMARY KEY");
    assertThat(unknown.body().path("detail").asString())
        .contains("Column 'nope' not found in any table");
    assertThat(unknown.body().path("queryColumn").asInt()).isEqualTo(8);
    assertThat(api.get(TABLES + "mismatched").status()).isEqualTo(404);
  }

  @Test
  void shouldTellCreatedToTheOneRequestThatCreatedTheTable() throws Exception {
    String statement =
        "CREATE MATERIALIZED TABLE raced AS SELECT order_id FROM examples.marketplace.orders";
    ExecutorService pool = Executors.newFixedThreadPool(10);
    List<Future<Answer>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      boolean viaSql = i % 2 == 0;
      answers.add(
          pool.submit(
              () ->
                  viaSql
                      ? api.sql(
                          statement.replace("CREATE ", "CREATE OR ALTER "),
                          "examples",
                          "marketplace")
                      : api.put(
                          TABLES + "raced", null, Map.of("spec", Map.of("statement", statement)))));
    }
    List<String> outcomes = new ArrayList<>();
    for (Future<Answer> answer : answers) {
      Answer a = answer.get();
      outcomes.add(
          a.status()
              + " "
              + (a.body().has("results")
                  ? a.body().path("results").path(0).path("outcome").asString()
                  : a.body().path("code").asString("")));
    }
    pool.shutdown();
    // One request made the row, by either path; the others changed nothing or were refused.
    long created =
        outcomes.stream().filter(o -> o.equals("201 ") || o.equals("200 CREATED")).count();
    assertThat(created).as(outcomes.toString()).isEqualTo(1);
    assertThat(outcomes).allMatch(o -> o.matches("(201|200|409) .*"), "no other status");
    assertThat(api.get(TABLES + "raced/versions").body().path("items").size()).isEqualTo(1);
    api.ok("DROP MATERIALIZED TABLE raced");
  }

  @Test
  void shouldUpdateThroughTheResourceApiWithOptimisticConcurrency() {
    Answer created =
        api.put(
            TABLES + "via_api",
            null,
            Map.of(
                "spec",
                Map.of(
                    "statement",
                    "CREATE MATERIALIZED TABLE via_api FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM examples.marketplace.orders")));
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    long version = created.body().path("metadata").path("resourceVersion").asLong();
    awaitPhase("via_api", "RUNNING");

    Answer stale =
        api.put(
            TABLES + "via_api",
            "\"" + (version + 7) + "\"",
            Map.of("spec", Map.of("stopped", true)));
    Answer suspend =
        api.put(
            TABLES + "via_api",
            "\"" + table("via_api").path("metadata").path("resourceVersion").asLong() + "\"",
            Map.of("spec", Map.of("stopped", true)));

    Answer again =
        api.put(
            TABLES + "via_api",
            null,
            Map.of("metadata", Map.of("resourceVersion", version + 7), "spec", Map.of()));
    Answer renamed =
        api.put(
            TABLES + "via_api",
            null,
            Map.of(
                "spec",
                Map.of(
                    "statement",
                    "CREATE MATERIALIZED TABLE other AS SELECT order_id FROM"
                        + " examples.marketplace.orders")));
    Answer staleDrop = api.delete(TABLES + "via_api", "\"" + version + "\"");

    assertThat(stale.status()).isEqualTo(412); // the If-Match header
    assertThat(again.status()).isEqualTo(409); // metadata.resourceVersion
    assertThat(renamed.status()).isEqualTo(400);
    assertThat(renamed.body().path("detail").asString()).contains("names");
    assertThat(staleDrop.status()).as(staleDrop.text()).isEqualTo(412);
    assertThat(api.get(TABLES + "via_api").status()).isEqualTo(200);
    assertThat(suspend.status()).as(suspend.text()).isEqualTo(200);
    awaitPhase("via_api", "STOPPED");
    assertThat(api.get(TABLES + "via_api/versions").body().path("items").size()).isEqualTo(1);
    assertThat(api.get(TABLES + "via_api/versions/1").body().path("statement").asString())
        .contains("FRESHNESS = INTERVAL '2' SECOND");
    assertThat(
            api.get(TABLES + "via_api/events")
                .body()
                .path("items")
                .valueStream()
                .map(e -> e.path("reason").asString()))
        .contains(
            "Created",
            "QueryValidated",
            "TopicCreated",
            "JobSubmitted",
            "JobRunning",
            "SuspendRequested",
            "Suspended");
    assertThat(
            api.get(TABLES.substring(0, TABLES.length() - 1) + "?phase=STOPPED")
                .body()
                .path("items")
                .toString())
        .contains("via_api");
  }

  @Test
  void shouldEvolveTheQueryIntoANewJobWritingTheSameTopic() {
    ok(
        "CREATE MATERIALIZED TABLE evolving FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM examples.marketplace.orders");
    awaitPhase("evolving", "RUNNING");
    String first = table("evolving").path("status").path("job").path("id").asString();
    String firstName = table("evolving").path("status").path("job").path("pipelineName").asString();

    ok(
        "ALTER MATERIALIZED TABLE evolving AS SELECT order_id, price FROM examples.marketplace.orders WHERE price > 90");

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode status = table("evolving").path("status");
              assertThat(table("evolving").path("status").path("phase").asString())
                  .isEqualTo("RUNNING");
              assertThat(status.path("job").path("id").asString()).isNotEqualTo(first);
              assertThat(status.path("job").path("pipelineName").asString())
                  .isNotEqualTo(firstName);
            });
    // Stopped with a savepoint, not cancelled: its last rows are committed.
    assertThat(jobs.job(first).orElseThrow().state()).isEqualTo(FlinkJobs.JobState.FINISHED);
    assertThat(api.get(TABLES + "evolving/versions").body().path("items").size()).isEqualTo(2);
  }

  @Test
  void shouldRestartAFailingJobThenReportItFailedWithItsRootCause() {
    ok(
        "CREATE MATERIALIZED TABLE broken FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, CAST(order_id AS INT) AS n FROM examples.marketplace.orders");

    await()
        .atMost(Duration.ofSeconds(150))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () ->
                assertThat(table("broken").path("status").path("phase").asString())
                    .isEqualTo("FAILED"));

    JsonNode status = table("broken").path("status");
    assertThat(status.path("consecutiveFailures").asInt()).isEqualTo(5);
    assertThat(status.path("message").asString()).startsWith("For input string: '");
    assertThat(
            api.get(TABLES + "broken/events")
                .body()
                .path("items")
                .valueStream()
                .map(e -> e.path("reason").asString()))
        .contains("JobFailed", "RetriesExhausted");
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
