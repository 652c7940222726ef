package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Pipeline tables (seed 002) on the real stack: flows as jobs of their own into one topic, INSERT
 * ONCE backfills, expectations with their counts, refusals at submit. Rows are checked in the
 * table's topic against the source rows written here.
 */
@TributaryIT
class PipelineIT {

  static final String DATABASE = "pipelines";

  @LocalServerPort int port;
  Api api;
  String suffix;
  String kafka;

  @BeforeEach
  void setUp() {
    api = new Api(port);
    kafka = LocalStack.get().kafkaBootstrapServers();
    suffix = UUID.randomUUID().toString().substring(0, 6);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", DATABASE);
  }

  @Test
  void shouldAppendTheRowsOfTwoFlowsAndDropOneWithoutTouchingTheOther() throws Exception {
    String a = source("web", 100);
    String b = source("shop", 50);
    String t = "orders_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE, origin STRING)"
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id, amount, 'web' AS origin FROM STREAM("
            + a
            + ")");
    JsonNode second =
        ok(
            "CREATE FLOW shop_"
                + suffix
                + " COMMENT 'the shop' AS INSERT INTO "
                + t
                + " BY NAME SELECT amount, id FROM STREAM "
                + b);
    assertThat(second.path(0).path("resource").path("type").asString()).isEqualTo("FLOW");
    api.awaitPhase(DATABASE, t, "RUNNING");

    String topic = status(t).path("topic").path("name").asString();
    List<Map<String, Object>> rows = rows(topic, 150);
    Map<String, String> origins = new TreeMap<>();
    rows.forEach(r -> origins.put((String) r.get("id"), String.valueOf(r.get("origin"))));
    assertThat(rows).hasSize(150);
    assertThat(origins).hasSize(150);
    for (int i = 0; i < 100; i++) {
      assertThat(origins).containsEntry("web-" + i, "web");
    }
    for (int i = 0; i < 50; i++) {
      assertThat(origins).containsEntry("shop-" + i, "null"); // BY NAME: a missing column is NULL
    }

    Map<String, String> jobs = flowJobs(t);
    assertThat(jobs).containsOnlyKeys(t, "shop_" + suffix);
    assertThat(
            api.sql("SHOW FLOWS IN " + t, "examples", DATABASE)
                .body()
                .path("results")
                .path(0)
                .path("rows")
                .size())
        .isEqualTo(2);
    ok("DROP FLOW shop_" + suffix);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(flowJobs(t)).containsOnlyKeys(t));
    assertThat(flowJobs(t).get(t)).isEqualTo(jobs.get(t));
    api.awaitPhase(DATABASE, t, "RUNNING");
    write("web", 100, 10); // the remaining flow goes on
    assertThat(rows(topic, 160)).hasSize(160);
    assertThat(rows(topic, 161)).hasSize(160); // and nothing else arrives
  }

  @Test
  void shouldSuspendAndResumeOneFlowFromItsSavepointWhileTheOthersRunOn() throws Exception {
    String a = source("site", 50);
    String b = source("store", 30);
    String t = "sales_" + suffix;
    String store = "store_flow_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE) TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id, amount FROM "
            + a
            + "; CREATE FLOW "
            + store
            + " AS INSERT INTO "
            + t
            + " BY NAME SELECT id, amount FROM "
            + b);
    api.awaitPhase(DATABASE, t, "RUNNING");
    String topic = status(t).path("topic").path("name").asString();
    assertThat(rows(topic, 80)).hasSize(80);
    Map<String, String> jobs = flowJobs(t);

    JsonNode suspended = ok("ALTER FLOW " + store + " SUSPEND").path(0);
    assertThat(suspended.path("kind").asString()).isEqualTo("ALTER_FLOW_SUSPEND");
    await().atMost(Duration.ofSeconds(60)).until(() -> flowPhase(t, store), "STOPPED"::equals);
    String savepoint = flow(t, store).path("lastSavepoint").path("path").asString();
    assertThat(savepoint).isNotBlank();
    // The table runs on, and says which flow does not.
    await()
        .atMost(Duration.ofSeconds(45))
        .untilAsserted(
            () -> {
              JsonNode table = status(t);
              assertThat(table.path("phase").asString()).isEqualTo("RUNNING");
              assertThat(table.path("message").asString())
                  .contains(store + " STOPPED", t + " RUNNING");
            });
    assertThat(flowJobs(t).get(t)).isEqualTo(jobs.get(t));

    write("site", 50, 10);
    write("store", 30, 20);
    assertThat(rows(topic, 91)).hasSize(90); // the site's new rows, none of the store's yet

    Api.Answer resumed = api.post(tables() + t + "/flows/" + store + "/resume", Map.of());
    assertThat(resumed.status()).as(resumed.text()).isEqualTo(202);
    assertThat(resumed.body().path("outcome").asString()).isEqualTo("REQUESTED");
    await().atMost(Duration.ofSeconds(60)).until(() -> flowPhase(t, store), "RUNNING"::equals);
    assertThat(flow(t, store).path("job").path("restoredFrom").asString()).contains(savepoint);
    List<Map<String, Object>> rows = rows(topic, 111);
    assertThat(rows).hasSize(110); // each row once: the store's 20 new rows, nothing read twice
    assertThat(rows.stream().map(r -> r.get("id")).distinct().count()).isEqualTo(110);
    assertThat(flowJobs(t).get(t)).isEqualTo(jobs.get(t));
    Api.Answer again = api.post(tables() + t + "/flows/" + store + "/resume", Map.of());
    assertThat(again.body().path("outcome").asString()).isEqualTo("UNCHANGED");
    Api.Answer unknown = api.post(tables() + t + "/flows/nope_" + suffix + "/suspend", Map.of());
    assertThat(unknown.status()).isEqualTo(404);
  }

  @Test
  void shouldRefuseAFlowThatDoesNotFitItsTableAtSubmit() throws Exception {
    String a = source("fit", 1);
    String t = "fit_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE) FLOW INSERT BY NAME SELECT id, amount FROM "
            + a);

    Api.Answer unknown =
        api.sql(
            "CREATE FLOW f_"
                + suffix
                + " AS INSERT INTO "
                + t
                + " BY NAME SELECT id, amount AS AMOUNT_EUR FROM "
                + a
                + " WHERE id IS NOT NULL",
            "examples",
            DATABASE);
    Api.Answer typed =
        api.sql(
            "CREATE FLOW f_"
                + suffix
                + " AS INSERT INTO "
                + t
                + " BY NAME SELECT id, CAST(amount AS STRING) AS amount FROM "
                + a
                + " WHERE id IS NOT NULL",
            "examples",
            DATABASE);
    Api.Answer nosuch =
        api.sql(
            "CREATE TABLE bad_" + suffix + " FLOW INSERT BY NAME SELECT nosuch FROM " + a,
            "examples",
            DATABASE);
    Api.Answer positional =
        api.sql(
            "CREATE FLOW f_" + suffix + " AS INSERT INTO " + t + " SELECT id FROM " + a,
            "examples",
            DATABASE);

    assertThat(unknown.status()).as(unknown.text()).isEqualTo(400);
    assertThat(unknown.text()).contains("AMOUNT_EUR").contains("is not a column of");
    assertThat(typed.status()).as(typed.text()).isEqualTo(400);
    assertThat(typed.text()).contains("'amount' is DOUBLE").contains("STRING");
    assertThat(nosuch.status()).as(nosuch.text()).isEqualTo(400);
    assertThat(nosuch.text()).contains("nosuch");
    assertThat(positional.status()).as(positional.text()).isEqualTo(400);
    assertThat(positional.text()).contains("by position");
    assertThat(api.get(tables() + "bad_" + suffix).status()).isEqualTo(404);
    assertThat(flowJobs(t)).containsOnlyKeys(t); // nothing stored by the refused ones
  }

  @Test
  void shouldRunAnInsertOnceBackfillExactlyOnce() throws Exception {
    String live = source("live", 20);
    String history = source("history", 40);
    String t = "backfilled_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE) TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id, amount FROM "
            + live);
    ok(
        "CREATE FLOW backfill_"
            + suffix
            + " AS INSERT INTO ONCE "
            + t
            + " BY NAME SELECT id, amount FROM "
            + history);
    String topic = awaitTopic(t);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(flow(t, "backfill_" + suffix).path("run").path("state").asString())
                    .isEqualTo("SUCCEEDED"));
    JsonNode once = flow(t, "backfill_" + suffix).path("run");
    assertThat(once.path("rows").asLong()).isEqualTo(40);
    // Done, and said so: SUCCEEDED in its GET and in SHOW FLOWS, never RUNNING.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(flowPhase(t, "backfill_" + suffix)).isEqualTo("SUCCEEDED");
              JsonNode shown = ok("SHOW FLOWS IN " + t).path(0);
              int status = columnIndex(shown, "status");
              assertThat(shown.path("rows").valueStream())
                  .filteredOn(r -> r.path(0).asString().equals("backfill_" + suffix))
                  .singleElement()
                  .satisfies(r -> assertThat(r.path(status).asString()).isEqualTo("SUCCEEDED"));
            });
    write("history", 40, 25); // after the run: never read
    ok(
        "CREATE FLOW more_"
            + suffix
            + " AS INSERT INTO "
            + t
            + " BY NAME SELECT id, amount FROM "
            + live
            + " WHERE amount < 0"); // another flow changes: the backfill stays done
    api.awaitPhase(DATABASE, t, "RUNNING");
    List<Map<String, Object>> rows = rows(topic, 61);
    long fromHistory =
        rows.stream().filter(r -> ((String) r.get("id")).startsWith("history-")).count();
    assertThat(rows).hasSize(60);
    assertThat(fromHistory).isEqualTo(40);
    assertThat(flow(t, "backfill_" + suffix).path("run").path("jobId").asString())
        .isEqualTo(once.path("jobId").asString());
  }

  @Test
  void shouldEmptyTheTableAndRunEveryFlowAgainOnAFullRefresh() throws Exception {
    String live = source("again", 20);
    String history = source("past", 40);
    String t = "refreshed_" + suffix;
    String backfill = "past_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE) TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id, amount FROM "
            + live
            + "; CREATE FLOW "
            + backfill
            + " AS INSERT INTO ONCE "
            + t
            + " BY NAME SELECT id, amount FROM "
            + history);
    String topic = awaitTopic(t);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> flow(t, backfill).path("run").path("state").asString(""), "SUCCEEDED"::equals);
    String firstRun = flow(t, backfill).path("run").path("jobId").asString();
    assertThat(rows(topic, 60)).hasSize(60);
    write("past", 40, 5); // read only by the backfill's next run

    ok("REFRESH STREAMING TABLE " + t + " FULL");
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              JsonNode once = flow(t, backfill).path("run");
              assertThat(once.path("state").asString("")).isEqualTo("SUCCEEDED");
              assertThat(once.path("jobId").asString()).isNotEqualTo(firstRun);
            });
    api.awaitPhase(DATABASE, t, "RUNNING");
    List<Map<String, Object>> rows = rows(topic, 66);
    assertThat(rows).hasSize(65); // what the topic holds now: each row once, the new ones too
    assertThat(rows.stream().map(r -> r.get("id")).distinct().count()).isEqualTo(65);
    assertThat(flow(t, backfill).path("run").path("rows").asLong()).isEqualTo(45);
    Api.Answer partition =
        api.post(tables() + t + "/refreshes", Map.of("partition", Map.of("id", "x")));
    assertThat(partition.status()).as(partition.text()).isEqualTo(400);
  }

  @Test
  void shouldDropAndCountRowsThatViolateAnExpectation() throws Exception {
    String a = source("checked", 200);
    long violating = IntStream.range(0, 200).filter(i -> amount(i) <= 50).count();
    String mt = "pricey_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + mt
            + " (CONSTRAINT pricey EXPECT (amount > 50) ON VIOLATION DROP ROW,"
            + " CONSTRAINT named EXPECT (id LIKE 'checked-%'))"
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, mt, "RUNNING");
    String topic = status(mt).path("topic").path("name").asString();
    List<Map<String, Object>> rows = rows(topic, (int) (200 - violating));
    assertThat(rows).hasSize((int) (200 - violating));
    assertThat(rows).allSatisfy(r -> assertThat((Double) r.get("amount")).isGreaterThan(50));
    long kept = 200 - violating;
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Map<String, long[]> counts = expectationCounts(mt);
              assertThat(counts.get("pricey")).containsExactly(kept, violating);
              assertThat(counts.get("named")).containsExactly(200L, 0L);
            });
    assertThat(rows(topic, (int) kept + 1)).hasSize((int) kept);
  }

  @Test
  void shouldStopAFlowAtAFailUpdateViolationNamingItAndTheRow() throws Exception {
    String a = source("strict", 30);
    String t = "strict_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " (id STRING, amount DOUBLE, CONSTRAINT small EXPECT (amount < 90) ON VIOLATION FAIL UPDATE)"
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, t, "FAILED");
    JsonNode flow = flow(t, t);
    assertThat(flow.path("message").asString())
        .contains("EXPECTATION_VIOLATION")
        .contains("'small'")
        .contains("\"id\"")
        .contains("\"amount\"");
    String reason =
        api.get(tables() + t + "/flows")
            .body()
            .path("items")
            .path(0)
            .path("status")
            .path("phase")
            .asString();
    assertThat(reason).isEqualTo("FAILED");
    long jobFailures = 0;
    for (JsonNode e : api.get(tables() + t + "/flows").body().path("items")) {
      jobFailures += e.path("status").path("consecutiveFailures").asLong();
    }
    assertThat(jobFailures).isLessThanOrEqualTo(1); // stopped, not restarted in a loop
  }

  @Test
  void shouldGoOnWhereAnImportedSavepointStopped() throws Exception {
    String a = source("moved", 40);
    String before = "moving_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + before
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, before, "RUNNING");
    assertThat(rows(status(before).path("topic").path("name").asString(), 40)).hasSize(40);
    ok("ALTER MATERIALIZED TABLE " + before + " SUSPEND");
    api.awaitPhase(DATABASE, before, "STOPPED");
    String savepoint = status(before).path("lastSavepoint").path("path").asString();
    assertThat(savepoint).isNotBlank();
    write("moved", 40, 15); // arrives while no job reads the source

    String after = "moved_" + suffix;
    ok(
        "CREATE TABLE "
            + after
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW IMPORT CHECKPOINT '"
            + savepoint
            + "' INSERT BY NAME SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, after, "RUNNING");

    List<Map<String, Object>> rows = rows(awaitTopic(after), 16);
    assertThat(rows).hasSize(15); // only what came after the savepoint: nothing read twice
    assertThat(rows)
        .allSatisfy(
            r ->
                assertThat(Integer.parseInt(((String) r.get("id")).substring("moved-".length())))
                    .isGreaterThanOrEqualTo(40));
    assertThat(flow(after, after).path("job").path("restoredFrom").asString()).contains(savepoint);
  }

  @Test
  void shouldKeepTheLatestRowPerKeyOfAChangeStream() throws Exception {
    String source = changeSource("changes");
    List<Object[]> changes =
        List.of(
            new Object[] {1, "a", 1, "UPSERT"},
            new Object[] {2, "b", 1, "UPSERT"},
            new Object[] {1, "a2", 3, "UPSERT"},
            new Object[] {1, "older", 2, "UPSERT"}, // out of order: older than a2
            new Object[] {3, "c", 1, "UPSERT"},
            new Object[] {3, "c", 2, "DELETE"},
            new Object[] {2, "b2", 2, "UPSERT"},
            new Object[] {4, "d", 5, "DELETE"},
            new Object[] {4, "late", 4, "UPSERT"}, // older than its delete: stays deleted
            new Object[] {5, "e", 1, "UPSERT"});
    sendChanges("pipeline-changes-" + suffix, changes);
    String t = "people_" + suffix;
    ok(
        "CREATE OR REFRESH STREAMING TABLE "
            + t
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s');"
            + " CREATE FLOW people_cdc_"
            + suffix
            + " AS AUTO CDC INTO "
            + t
            + " FROM STREAM "
            + source
            + " KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq"
            + " COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 1");
    api.awaitPhase(DATABASE, t, "RUNNING");
    String table = awaitTopic(t);
    Map<String, String> expected =
        Map.of(
            "{\"id\":1}", "{\"id\":1,\"name\":\"a2\"}",
            "{\"id\":2}", "{\"id\":2,\"name\":\"b2\"}",
            "{\"id\":5}", "{\"id\":5,\"name\":\"e\"}");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(TopicReader.compacted(kafka, table)).isEqualTo(expected));
    Api.Answer another =
        api.sql(
            "CREATE FLOW more_"
                + suffix
                + " AS INSERT INTO "
                + t
                + " BY NAME SELECT id, name FROM "
                + source,
            "examples",
            DATABASE);
    assertThat(another.status()).as(another.text()).isEqualTo(409);
  }

  @Test
  void shouldApplyAChangeStreamOnceUpToItsEndWithAutoCdcOnce() throws Exception {
    String source = changeSource("once_changes");
    String topic = "pipeline-once_changes-" + suffix;
    sendChanges(
        topic,
        List.of(
            new Object[] {1, "a", 1, "UPSERT"},
            new Object[] {1, "a2", 3, "UPSERT"},
            new Object[] {1, "older", 2, "UPSERT"},
            new Object[] {2, "b", 1, "UPSERT"},
            new Object[] {2, "b", 2, "DELETE"},
            new Object[] {3, "c", 1, "UPSERT"}));
    String t = "people_once_" + suffix;
    String flow = "people_backfill_" + suffix;
    ok(
        "CREATE STREAMING TABLE "
            + t
            + "; CREATE FLOW "
            + flow
            + " AS AUTO CDC ONCE INTO "
            + t
            + " FROM STREAM("
            + source
            + ") KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq"
            + " COLUMNS * EXCEPT (op, seq)");
    String table = awaitTopic(t);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> flow(t, flow).path("run").path("state").asString(""), "SUCCEEDED"::equals);
    Map<String, String> expected =
        Map.of(
            "{\"id\":1}", "{\"id\":1,\"name\":\"a2\"}",
            "{\"id\":3}", "{\"id\":3,\"name\":\"c\"}");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(TopicReader.compacted(kafka, table)).isEqualTo(expected));

    // Once: a change after the run's end offsets is not applied.
    sendChanges(topic, List.<Object[]>of(new Object[] {4, "late", 1, "UPSERT"}));
    Thread.sleep(5_000);
    assertThat(TopicReader.compacted(kafka, table)).isEqualTo(expected);
    assertThat(flow(t, flow).path("run").path("state").asString()).isEqualTo("SUCCEEDED");
  }

  @Test
  void shouldKeepEveryVersionOfEachKeyWithScdType2() throws Exception {
    String source = changeSource("history");
    String topic = "pipeline-history-" + suffix;
    // Out of order, repeated, deleted, deleted and back, and a row later than its delete.
    List<Object[]> first =
        List.of(
            new Object[] {1, "a", 10, "UPSERT"},
            new Object[] {1, "c", 30, "UPSERT"},
            new Object[] {1, "b", 20, "UPSERT"}, // late: between a and c
            new Object[] {1, "b", 20, "UPSERT"}, // repeated
            new Object[] {2, "x", 5, "UPSERT"},
            new Object[] {2, "x", 7, "DELETE"},
            new Object[] {2, "y", 9, "UPSERT"}, // back after its delete
            new Object[] {3, "p", 1, "UPSERT"},
            new Object[] {3, "q", 4, "DELETE"},
            new Object[] {3, "late", 3, "UPSERT"}); // before the delete: closed by it
    sendChanges(topic, first);
    String t = "people_history_" + suffix;
    ok(
        "CREATE STREAMING TABLE "
            + t
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s'); CREATE FLOW history_"
            + suffix
            + " AS AUTO CDC INTO "
            + t
            + " FROM STREAM("
            + source
            + ") KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq"
            + " COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2");
    api.awaitPhase(DATABASE, t, "RUNNING");
    String table = awaitTopic(t);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(history(table)).isEqualTo(expectedHistory(first)));

    // A change while it runs: a late one in the middle of 1's history, a new version of 2.
    List<Object[]> more =
        List.of(new Object[] {1, "a2", 15, "UPSERT"}, new Object[] {2, "z", 12, "UPSERT"});
    sendChanges(topic, more);
    List<Object[]> all = new ArrayList<>(first);
    all.addAll(more);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(history(table)).isEqualTo(expectedHistory(all)));
    assertThat(flowStatement(t, "history_" + suffix)).contains("STORED AS SCD TYPE 2");
  }

  @Test
  void shouldOpenAVersionOnlyWhenATrackedColumnChangesWithTrackHistoryOn() throws Exception {
    String source = changeSource("tracked");
    String topic = "pipeline-tracked-" + suffix;
    // name is tracked, seq is not: a change of seq alone updates its version in place.
    List<Object[]> first =
        List.of(
            new Object[] {1, "a", 10, "UPSERT"},
            new Object[] {1, "a", 20, "UPSERT"},
            new Object[] {1, "b", 30, "UPSERT"},
            new Object[] {1, "a", 25, "UPSERT"}, // late, same name as before it: no version
            new Object[] {1, "b", 40, "UPSERT"},
            new Object[] {2, "x", 5, "UPSERT"},
            new Object[] {2, "x", 7, "DELETE"},
            new Object[] {2, "x", 9, "UPSERT"}, // back after its delete: a version, same name
            new Object[] {2, "x", 11, "UPSERT"},
            new Object[] {3, "p", 1, "UPSERT"},
            new Object[] {3, "q", 4, "UPSERT"},
            new Object[] {3, "p", 3, "UPSERT"}); // late, same name as 1: 4 still opens one
    sendChanges(topic, first);
    String t = "people_tracked_" + suffix;
    ok(
        "CREATE STREAMING TABLE "
            + t
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s'); CREATE FLOW tracked_"
            + suffix
            + " AS AUTO CDC INTO "
            + t
            + " FROM STREAM("
            + source
            + ") KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq"
            + " COLUMNS * EXCEPT (op) STORED AS SCD TYPE 2 TRACK HISTORY ON (name)");
    api.awaitPhase(DATABASE, t, "RUNNING");
    String table = awaitTopic(t);
    Map<String, List<Object>> expected = expectedTrackedHistory(first);
    assertThat(expected).as("the computation apart from Flink").hasSize(6);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(history(table)).isEqualTo(expected));

    // While it runs: a new version of 1, a late change inside 1's second version, and a late
    // change of 3 that splits its first version into three.
    List<Object[]> more =
        List.of(
            new Object[] {1, "c", 50, "UPSERT"},
            new Object[] {1, "b", 45, "UPSERT"},
            new Object[] {3, "q", 2, "UPSERT"});
    sendChanges(topic, more);
    List<Object[]> all = new ArrayList<>(first);
    all.addAll(more);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(history(table)).isEqualTo(expectedTrackedHistory(all)));
    assertThat(flowStatement(t, "tracked_" + suffix)).contains("TRACK HISTORY ON (`name`)");
  }

  /**
   * SCD TYPE 2 with TRACK HISTORY ON (name), computed here apart from Flink: per key, the changes
   * ordered by sequence; a change that is not a delete opens a version when it is the first, comes
   * after a delete, or has another name than the change before it; else it updates the version it
   * is in (its seq is the version's latest). A version ends at the next opening change or delete.
   */
  private static Map<String, List<Object>> expectedTrackedHistory(List<Object[]> changes) {
    Map<Integer, TreeMap<Long, Object[]>> byKey = new TreeMap<>();
    for (Object[] c : changes) {
      byKey
          .computeIfAbsent((Integer) c[0], k -> new TreeMap<>())
          .put(((Number) c[2]).longValue(), c);
    }
    Map<String, List<Object>> expected = new TreeMap<>();
    byKey.forEach(
        (id, ordered) -> {
          List<Object> open = null;
          Object[] before = null;
          for (Map.Entry<Long, Object[]> e : ordered.entrySet()) {
            Object[] c = e.getValue();
            boolean delete = "DELETE".equals(c[3]);
            boolean opens =
                !delete
                    && (before == null || "DELETE".equals(before[3]) || !before[1].equals(c[1]));
            if ((delete || opens) && open != null) {
              open.set(2, e.getKey());
              open = null;
            }
            if (opens) {
              open = new ArrayList<>(List.of(c[1], e.getKey()));
              open.add(null);
              expected.put(id + "@" + e.getKey(), open);
            } else if (!delete && open != null) {
              open.set(1, e.getKey());
            }
            before = c;
          }
        });
    return expected;
  }

  /** The table's compacted content: "id@start" to [name, seq, end]. */
  private Map<String, List<Object>> history(String topic) {
    Map<String, List<Object>> rows = new TreeMap<>();
    TopicReader.compacted(kafka, topic)
        .forEach(
            (key, value) -> {
              JsonNode k = JsonMapper.shared().readTree(key);
              JsonNode v = JsonMapper.shared().readTree(value);
              List<Object> row = new ArrayList<>();
              row.add(v.path("name").asString());
              row.add(v.path("seq").asLong());
              row.add(v.path("__END_AT").isNull() ? null : v.path("__END_AT").asLong());
              rows.put(k.path("id").asInt() + "@" + k.path("__START_AT").asLong(), row);
            });
    return rows;
  }

  /**
   * SCD TYPE 2 computed here, apart from Flink: per key, the changes ordered by sequence (a
   * repeated sequence once); each change that is not a delete is a version from its sequence to the
   * next change's.
   */
  private static Map<String, List<Object>> expectedHistory(List<Object[]> changes) {
    Map<Integer, TreeMap<Long, Object[]>> byKey = new TreeMap<>();
    for (Object[] c : changes) {
      byKey
          .computeIfAbsent((Integer) c[0], k -> new TreeMap<>())
          .put(((Number) c[2]).longValue(), c);
    }
    Map<String, List<Object>> expected = new TreeMap<>();
    byKey.forEach(
        (id, ordered) ->
            ordered.forEach(
                (seq, c) -> {
                  if (!"DELETE".equals(c[3])) {
                    Long end = ordered.higherKey(seq);
                    List<Object> row = new ArrayList<>();
                    row.add(c[1]);
                    row.add(seq);
                    row.add(end);
                    expected.put(id + "@" + seq, row);
                  }
                }));
    return expected;
  }

  private String flowStatement(String table, String flow) {
    for (JsonNode f : api.get(tables() + table + "/flows").body().path("items")) {
      if (f.path("metadata").path("name").asString().equals(flow)) {
        return f.path("spec").path("statement").asString();
      }
    }
    throw new AssertionError("no flow " + flow + " of " + table);
  }

  /** A one-partition topic of change rows (id, name, seq, op) and its source table. */
  private String changeSource(String name) throws Exception {
    String source = name + "_src_" + suffix;
    jsonSource(
        source, "pipeline-" + name + "-" + suffix, "id INT, name STRING, seq BIGINT, op STRING");
    return source;
  }

  /** A one-partition topic and a JSON source table over it, read from the earliest offset. */
  private void jsonSource(String table, String topic, String columns) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    ok(
        "CREATE TABLE "
            + table
            + " ("
            + columns
            + ") WITH ('connector' = 'kafka', 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')");
  }

  private void sendChanges(String topic, List<Object[]> changes) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (Object[] c : changes) {
        producer
            .send(
                new ProducerRecord<>(
                    topic,
                    null,
                    JsonMapper.shared()
                        .writeValueAsString(
                            Map.of("id", c[0], "name", c[1], "seq", c[2], "op", c[3]))))
            .get();
      }
    }
  }

  @Test
  void shouldSkipAndCountOrStopAtRecordsASourceCannotRead() throws Exception {
    String a = source("dirty", 3);
    sendRaw("pipeline-dirty-" + suffix, null, "not json {");
    write("dirty", 3, 2);
    String lenient = "lenient_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + lenient
            + " WITH ('error-handling.mode' = 'ignore') FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT id, amount FROM "
            + a);
    String t = "strict_reader_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " TBLPROPERTIES ('error-handling.mode' = 'fail', 'pipelines.trigger.interval' ="
            + " '1 s') FLOW INSERT BY NAME SELECT id, amount FROM "
            + a);

    api.awaitPhase(DATABASE, lenient, "RUNNING");
    assertThat(rows(status(lenient).path("topic").path("name").asString(), 6)).hasSize(5);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> assertThat(status(lenient).path("recordsSkipped").asLong()).isEqualTo(1));
    api.awaitPhase(DATABASE, t, "FAILED");
    JsonNode flow = flow(t, t);
    assertThat(flow.path("message").asString())
        .contains("DESERIALIZATION_ERROR")
        .contains("not json {");
    assertThat(flow.path("consecutiveFailures").asLong()).isLessThanOrEqualTo(1);
  }

  /**
   * A source whose rowtime is a column of the value: a record it cannot read has no rowtime, and
   * the job must neither fail on it nor hold the watermark back; the rows after it still close
   * their windows.
   */
  @Test
  @SuppressWarnings("unchecked")
  void shouldSendRecordsOfASourceWithAWatermarkToTheDeadLetterTable() throws Exception {
    String topic = "pipeline-timed-" + suffix;
    String source = "timed_src_" + suffix;
    jsonSource(
        source,
        topic,
        "id STRING, amount DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND");
    sendRaw(topic, null, "{\"id\": \"t-0\", \"amount\": 1, \"ts\": \"2026-01-01 00:00:01\"}");
    sendRaw(topic, null, "not json either {");
    sendRaw(topic, null, "{\"id\": \"t-1\", \"amount\": 2, \"ts\": \"2026-01-01 00:00:02\"}");
    // Closes the first minute's window once the watermark passes it.
    sendRaw(topic, null, "{\"id\": \"t-2\", \"amount\": 4, \"ts\": \"2026-01-01 00:01:30\"}");
    String t = "timed_" + suffix;
    String target = "timed_errors_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + t
            + " WITH ('error-handling.mode' = 'log', 'error-handling.log.target' = '"
            + target
            + "') FRESHNESS = INTERVAL '1' SECOND AS SELECT window_start, SUM(amount) AS total,"
            + " COUNT(*) AS n FROM TABLE(TUMBLE(TABLE "
            + source
            + ", DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end");
    api.awaitPhase(DATABASE, t, "RUNNING");
    List<Map<String, Object>> windows = rows(awaitTopic(t), 1);
    assertThat(windows)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(((Number) w.get("total")).doubleValue()).isEqualTo(3.0);
              assertThat(((Number) w.get("n")).longValue()).isEqualTo(2);
            });
    String deadTopic =
        api.get("/v1/catalogs/examples/databases/" + DATABASE + "/tables/" + target)
            .body()
            .path("spec")
            .path("options")
            .path("topic")
            .asString();
    List<String> dead = TopicReader.values(kafka, deadTopic, 2, Duration.ofSeconds(3), true);
    assertThat(dead).hasSize(1);
    assertThat(decoded(JsonMapper.shared().readValue(dead.get(0), Map.class).get("value")))
        .isEqualTo("not json either {");
    assertThat(status(t).path("phase").asString()).isEqualTo("RUNNING");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldSendRecordsASourceCannotReadToTheDeadLetterTableOnce() throws Exception {
    String a = source("letters", 3);
    sendRaw("pipeline-letters-" + suffix, "k-bad", "not json {");
    write("letters", 3, 2);
    String target = "errors_" + suffix;
    String t = "logging_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + t
            + " WITH ('error-handling.mode' = 'log', 'error-handling.log.target' = '"
            + target
            + "') FRESHNESS = INTERVAL '1' SECOND AS SELECT id, amount FROM "
            + a);

    // The dead-letter table is a table of the catalog, with its columns, at once.
    JsonNode registered =
        api.get("/v1/catalogs/examples/databases/" + DATABASE + "/tables/" + target)
            .body()
            .path("spec");
    List<String> names =
        registered
            .path("schema")
            .path("columns")
            .valueStream()
            .map(c -> c.path("name").asString())
            .toList();
    assertThat(names)
        .containsExactly(
            "error_time",
            "error_message",
            "table_name",
            "source_table",
            "topic",
            "partition",
            "offset",
            "record_time",
            "key",
            "value");
    String deadTopic = registered.path("options").path("topic").asString();

    api.awaitPhase(DATABASE, t, "RUNNING");
    // The table's own rows: every readable record, once.
    List<Map<String, Object>> rows = rows(awaitTopic(t), 6);
    assertThat(rows)
        .extracting(r -> r.get("id"))
        .containsExactlyInAnyOrder("letters-0", "letters-1", "letters-2", "letters-3", "letters-4");
    // The unreadable one, once, with where it was and what it held.
    // Committed at the same checkpoints as the rows read above: a second one would be there.
    List<String> dead = TopicReader.values(kafka, deadTopic, 2, Duration.ofSeconds(3), true);
    assertThat(dead).hasSize(1);
    Map<String, Object> letter = JsonMapper.shared().readValue(dead.get(0), Map.class);
    assertThat(letter.get("table_name")).isEqualTo("examples." + DATABASE + "." + t);
    assertThat(letter.get("source_table")).isEqualTo("examples." + DATABASE + "." + a);
    assertThat(letter.get("topic")).isEqualTo("pipeline-letters-" + suffix);
    assertThat(letter.get("partition")).isEqualTo(0);
    assertThat(((Number) letter.get("offset")).longValue()).isEqualTo(3);
    assertThat(letter.get("error_message").toString()).isNotBlank();
    assertThat(decoded(letter.get("value"))).isEqualTo("not json {");
    assertThat(decoded(letter.get("key"))).isEqualTo("k-bad");
    assertThat(letter.get("error_time")).isNotNull();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> assertThat(status(t).path("recordsDeadLettered").asLong()).isEqualTo(1));
    assertThat(status(t).path("recordsSkipped").isMissingNode()).isTrue();

    // It is a table like the others: a materialized table reads it through its registered schema.
    String counts = "letter_counts_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + counts
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT source_table, COUNT(*) AS letters FROM "
            + target
            + " GROUP BY source_table");
    api.awaitPhase(DATABASE, counts, "RUNNING");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(TopicReader.compacted(kafka, awaitTopic(counts)).values())
                    .singleElement()
                    .asString()
                    .contains("\"letters\":1")
                    .contains(a));

    // A second table may log to the same dead-letter table; a table that is not one is refused.
    Api.Answer notDead =
        api.sql(
            "CREATE MATERIALIZED TABLE refused_"
                + suffix
                + " WITH ('error-handling.mode' = 'log', 'error-handling.log.target' = '"
                + a
                + "') AS SELECT id FROM "
                + a,
            "examples",
            DATABASE);
    assertThat(notDead.status()).as(notDead.text()).isEqualTo(400);
    assertThat(notDead.text()).contains("is not a dead-letter table");
    Api.Answer ownName =
        api.sql(
            "CREATE MATERIALIZED TABLE refused_"
                + suffix
                + " WITH ('error-handling.mode' = 'log', 'error-handling.log.target' = '"
                + t
                + "') AS SELECT id FROM "
                + a,
            "examples",
            DATABASE);
    assertThat(ownName.status()).as(ownName.text()).isEqualTo(400);
    assertThat(ownName.text()).contains("is a materialized table");
    assertThat(api.get(tables() + "refused_" + suffix).status()).isEqualTo(404);
  }

  @Test
  void shouldDeclarePipelineTablesAndFlowsAsResourcesWithPlansAndPreconditions() throws Exception {
    String a = source("declared", 4);
    String t = "declared_" + suffix;
    String f = "feed_" + suffix;
    String tablePath = tables() + t;
    String flowPath = tablePath + "/flows/" + f;
    Map<String, Object> table =
        Map.of(
            "spec",
            Map.of(
                "statement",
                "CREATE STREAMING TABLE "
                    + t
                    + " COMMENT 'declared' TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"));
    String flowStatement =
        "CREATE FLOW " + f + " AS INSERT INTO " + t + " BY NAME SELECT id, amount FROM " + a;
    Map<String, Object> flow = Map.of("spec", Map.of("statement", flowStatement));

    // A dry run stores nothing.
    Api.Answer planned =
        api.put(tablePath, null, Map.of("spec", table.get("spec"), "dryRun", true));
    assertThat(planned.status()).as(planned.text()).isEqualTo(200);
    assertThat(planned.body().path("dryRun").asBoolean()).isTrue();
    assertThat(api.get(tablePath).status()).isEqualTo(404);

    Api.Answer created = api.put(tablePath, null, table);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    assertThat(created.body().path("kind").asString()).isEqualTo("PipelineTable");
    Api.Answer again = api.put(tablePath, null, table);
    assertThat(again.status()).as(again.text()).isEqualTo(200);
    Api.Answer otherwise =
        api.put(
            tablePath,
            null,
            Map.of("spec", Map.of("statement", "CREATE STREAMING TABLE " + t + " COMMENT 'x'")));
    assertThat(otherwise.status()).as(otherwise.text()).isEqualTo(409);
    Api.Answer wrongName =
        api.put(tablePath, null, Map.of("spec", Map.of("statement", "CREATE STREAMING TABLE x")));
    assertThat(wrongName.status()).as(wrongName.text()).isEqualTo(400);

    // The flow: its plan, then the flow, its job and its rows.
    Api.Answer flowPlan = api.put(flowPath, null, Map.of("spec", flow.get("spec"), "dryRun", true));
    assertThat(flowPlan.status()).as(flowPlan.text()).isEqualTo(200);
    assertThat(flowPlan.body().path("plan").isObject()).as(flowPlan.text()).isTrue();
    assertThat(api.get(flowPath).status()).isEqualTo(404);
    Api.Answer flowCreated = api.put(flowPath, null, flow);
    assertThat(flowCreated.status()).as(flowCreated.text()).isEqualTo(201);
    assertThat(flowCreated.body().path("kind").asString()).isEqualTo("Flow");
    Api.Answer read = api.get(flowPath);
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.body().path("spec").path("statement").asString()).contains("INSERT INTO");
    String etag = read.headers().getETag();
    assertThat(etag).isNotNull();
    assertThat(api.put(flowPath, etag, flow).status()).isEqualTo(200);
    Api.Answer changed =
        api.put(
            flowPath,
            null,
            Map.of(
                "spec",
                Map.of("statement", flowStatement.replace("SELECT id, amount", "SELECT id"))));
    assertThat(changed.status()).as(changed.text()).isEqualTo(409);
    Api.Answer wrongTable =
        api.put(
            flowPath,
            null,
            Map.of("spec", Map.of("statement", flowStatement.replace("INTO " + t, "INTO other"))));
    assertThat(wrongTable.status()).as(wrongTable.text()).isEqualTo(400);

    api.awaitPhase(DATABASE, t, "RUNNING");
    assertThat(rows(awaitTopic(t), 4)).hasSize(4);

    // spec.stopped at the version read suspends the flow; at a stale version, nothing happens.
    Map<String, Object> stop = Map.of("spec", Map.of("statement", flowStatement, "stopped", true));
    assertThat(api.put(flowPath, "\"999999\"", stop).status()).isEqualTo(412);
    Api.Answer suspended = api.put(flowPath, api.get(flowPath).headers().getETag(), stop);
    assertThat(suspended.status()).as(suspended.text()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(api.get(flowPath).body().path("status").path("phase").asString())
                    .isEqualTo("STOPPED"));

    // DELETE of the flow, only at the version read.
    assertThat(api.delete(flowPath, "\"999999\"").status()).isEqualTo(412);
    Api.Answer dropped = api.delete(flowPath, api.get(flowPath).headers().getETag());
    assertThat(dropped.status()).as(dropped.text()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(api.get(flowPath).status()).isEqualTo(404));
    assertThat(api.delete(tablePath, null).status()).isEqualTo(202);
  }

  @Test
  void shouldRestartTheRunningJobWithTheErrorHandlingModeAnAlterSets() throws Exception {
    String a = source("modes", 2);
    String t = "modes_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + t
            + " WITH ('error-handling.mode' = 'fail') FRESHNESS = INTERVAL '1' SECOND"
            + " AS SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, t, "RUNNING");
    String before = status(t).path("job").path("id").asString();

    JsonNode altered =
        ok("ALTER MATERIALIZED TABLE " + t + " SET ('error-handling.mode' = 'ignore')");
    assertThat(altered.get(0).path("plan").path("restart").asString())
        .contains("'error-handling.mode' = 'ignore'")
        .contains("state is kept");
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonNode s = status(t);
              assertThat(s.path("phase").asString()).isEqualTo("RUNNING");
              assertThat(s.path("job").path("id").asString()).isNotEqualTo(before);
            });
    // The job now runs with 'ignore': a bad record is skipped and counted, not a failure.
    sendRaw("pipeline-modes-" + suffix, null, "not json {");
    write("modes", 2, 2);
    assertThat(rows(awaitTopic(t), 4)).hasSize(4);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(status(t).path("recordsSkipped").asLong()).isEqualTo(1));
    assertThat(status(t).path("phase").asString()).isEqualTo("RUNNING");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldSendTheRecordsAFlowCannotReadToItsTablesDeadLetterTable() throws Exception {
    String a = source("flowletters", 2);
    sendRaw("pipeline-flowletters-" + suffix, null, "{oops");
    write("flowletters", 2, 1);
    String target = "flow_errors_" + suffix;
    String t = "flow_logging_" + suffix;
    ok(
        "CREATE TABLE "
            + t
            + " TBLPROPERTIES ('error-handling.mode' = 'log', 'error-handling.log.target' = '"
            + target
            + "', 'pipelines.trigger.interval' = '1 s') FLOW INSERT BY NAME SELECT id, amount FROM "
            + a);
    api.awaitPhase(DATABASE, t, "RUNNING");
    assertThat(rows(awaitTopic(t), 3)).hasSize(3);
    String deadTopic =
        api.get("/v1/catalogs/examples/databases/" + DATABASE + "/tables/" + target)
            .body()
            .path("spec")
            .path("options")
            .path("topic")
            .asString();
    List<String> dead = TopicReader.values(kafka, deadTopic, 2, Duration.ofSeconds(5), true);
    assertThat(dead).hasSize(1);
    Map<String, Object> letter = JsonMapper.shared().readValue(dead.get(0), Map.class);
    assertThat(letter.get("table_name")).isEqualTo("examples." + DATABASE + "." + t);
    assertThat(decoded(letter.get("value"))).isEqualTo("{oops");
    assertThat(((Number) letter.get("offset")).longValue()).isEqualTo(2);

    // A bounded run does not write one yet: refused at submit.
    Api.Answer once =
        api.sql(
            "CREATE FLOW once_into_"
                + suffix
                + " AS INSERT INTO ONCE "
                + t
                + " BY NAME SELECT id, amount FROM "
                + a,
            "examples",
            DATABASE);
    assertThat(once.status()).as(once.text()).isEqualTo(400);
    assertThat(once.text()).contains("ONCE");
  }

  @Test
  @SuppressWarnings("unchecked")
  void shouldKeepTheLatestValueOfEachColumnWithIgnoreNullUpdates() throws Exception {
    String topic = "pipeline-partial-" + suffix;
    String source = "partial_src_" + suffix;
    jsonSource(source, topic, "id INT, name STRING, city STRING, seq BIGINT, op STRING");
    // Partial updates (null: not given), out of order, deleted and back, deleted for good.
    List<Object[]> first =
        List.of(
            new Object[] {1, "a", "X", 1, "UPSERT"},
            new Object[] {1, null, "Y", 3, "UPSERT"},
            new Object[] {1, "b", null, 2, "UPSERT"}, // late: its name is still the newest
            new Object[] {2, "p", "P", 1, "UPSERT"},
            new Object[] {2, null, null, 5, "DELETE"},
            new Object[] {2, "q", null, 6, "UPSERT"}, // back: nothing of before the delete
            new Object[] {3, "z", "Z", 1, "UPSERT"},
            new Object[] {3, null, null, 2, "DELETE"},
            new Object[] {4, "m", null, 1, "UPSERT"},
            new Object[] {4, null, "M", 2, "UPSERT"});
    sendPartial(topic, first);
    String t = "people_partial_" + suffix;
    ok(
        "CREATE STREAMING TABLE "
            + t
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s'); CREATE FLOW partial_"
            + suffix
            + " AS AUTO CDC INTO "
            + t
            + " FROM STREAM("
            + source
            + ") KEYS (id) IGNORE NULL UPDATES APPLY AS DELETE WHEN op = 'DELETE'"
            + " SEQUENCE BY seq COLUMNS * EXCEPT (op, seq)");
    // The same changes with SCD TYPE 2: a version per change, each filled in the same way.
    String h = "people_partial_history_" + suffix;
    ok(
        "CREATE STREAMING TABLE "
            + h
            + " TBLPROPERTIES ('pipelines.trigger.interval' = '1 s'); CREATE FLOW partial_history_"
            + suffix
            + " AS AUTO CDC INTO "
            + h
            + " FROM STREAM("
            + source
            + ") KEYS (id) IGNORE NULL UPDATES APPLY AS DELETE WHEN op = 'DELETE'"
            + " SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2");
    api.awaitPhase(DATABASE, t, "RUNNING");
    api.awaitPhase(DATABASE, h, "RUNNING");
    String table = awaitTopic(t);
    String history = awaitTopic(h);
    List<Object[]> all = new ArrayList<>(first);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(partialRows(table)).isEqualTo(expectedPartial(all)));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(partialHistory(history)).isEqualTo(expectedPartialHistory(all)));

    // Late and new changes while the job runs.
    List<Object[]> later =
        List.of(
            new Object[] {1, "old", "OLD", 0, "UPSERT"}, // older than all: changes nothing
            new Object[] {4, "n", null, 3, "UPSERT"},
            new Object[] {3, null, "W", 3, "UPSERT"});
    sendPartial(topic, later);
    all.addAll(later);
    Map<Integer, List<String>> expected = expectedPartial(all);
    assertThat(expected.get(4)).containsExactly("n", "M");
    assertThat(expected.get(3)).containsExactly(null, "W");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(partialRows(table)).isEqualTo(expected));
    Map<String, List<Object>> expectedHistory = expectedPartialHistory(all);
    assertThat(expectedHistory.get("4@2")).containsExactly("m", "M", 3L);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(partialHistory(history)).isEqualTo(expectedHistory));
  }

  /**
   * IGNORE NULL UPDATES with SCD TYPE 2, computed apart from Flink: the changes of each key in
   * sequence order; each that is not a delete is a version until the next change of its key, with
   * every column it leaves null taken from the latest earlier change that set it since the key's
   * last delete. "id@start" to [name, city, end].
   */
  private static Map<String, List<Object>> expectedPartialHistory(List<Object[]> changes) {
    Map<Integer, TreeMap<Integer, Object[]>> byKey = new TreeMap<>();
    for (Object[] c : changes) {
      byKey.computeIfAbsent((Integer) c[0], k -> new TreeMap<>()).put((Integer) c[3], c);
    }
    Map<String, List<Object>> expected = new TreeMap<>();
    byKey.forEach(
        (id, ordered) -> {
          Object[] filled = new Object[2];
          for (Map.Entry<Integer, Object[]> e : ordered.entrySet()) {
            Object[] c = e.getValue();
            if ("DELETE".equals(c[4])) {
              filled = new Object[2];
              continue;
            }
            for (int i = 0; i < 2; i++) {
              if (c[1 + i] != null) {
                filled[i] = c[1 + i];
              }
            }
            Integer end = ordered.higherKey(e.getKey());
            expected.put(
                id + "@" + e.getKey(),
                Arrays.asList(filled[0], filled[1], end == null ? null : end.longValue()));
          }
        });
    return expected;
  }

  @SuppressWarnings("unchecked")
  private Map<String, List<Object>> partialHistory(String topic) {
    Map<String, List<Object>> rows = new TreeMap<>();
    TopicReader.compacted(kafka, topic)
        .forEach(
            (key, value) -> {
              Map<String, Object> k = JsonMapper.shared().readValue(key, Map.class);
              Map<String, Object> row = JsonMapper.shared().readValue(value, Map.class);
              Object end = row.get("__END_AT");
              rows.put(
                  ((Number) k.get("id")).intValue()
                      + "@"
                      + ((Number) k.get("__START_AT")).intValue(),
                  Arrays.asList(
                      row.get("name"),
                      row.get("city"),
                      end == null ? null : ((Number) end).longValue()));
            });
    return rows;
  }

  /**
   * What IGNORE NULL UPDATES should give, computed apart from Flink: the changes of each key in
   * sequence order, a delete removing the row, an upsert setting the columns it gives.
   */
  private static Map<Integer, List<String>> expectedPartial(List<Object[]> changes) {
    List<Object[]> ordered = new ArrayList<>(changes);
    ordered.sort((x, y) -> Integer.compare((Integer) x[3], (Integer) y[3]));
    Map<Integer, List<String>> rows = new TreeMap<>();
    for (Object[] c : ordered) {
      Integer id = (Integer) c[0];
      if ("DELETE".equals(c[4])) {
        rows.remove(id);
        continue;
      }
      List<String> row = rows.computeIfAbsent(id, k -> new ArrayList<>(Arrays.asList(null, null)));
      for (int i = 0; i < 2; i++) {
        if (c[1 + i] != null) {
          row.set(i, (String) c[1 + i]);
        }
      }
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  private Map<Integer, List<String>> partialRows(String topic) {
    Map<Integer, List<String>> rows = new TreeMap<>();
    for (String value : TopicReader.compacted(kafka, topic).values()) {
      Map<String, Object> row = JsonMapper.shared().readValue(value, Map.class);
      rows.put(
          ((Number) row.get("id")).intValue(),
          Arrays.asList((String) row.get("name"), (String) row.get("city")));
    }
    return rows;
  }

  /** One record as it is, key and value as text (a value no format of the source reads, say). */
  private void sendRaw(String topic, String key, String value) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, key, value)).get();
    }
  }

  private void sendPartial(String topic, List<Object[]> changes) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (Object[] c : changes) {
        Map<String, Object> change = new HashMap<>();
        change.put("id", c[0]);
        change.put("name", c[1]);
        change.put("city", c[2]);
        change.put("seq", c[3]);
        change.put("op", c[4]);
        producer
            .send(new ProducerRecord<>(topic, null, JsonMapper.shared().writeValueAsString(change)))
            .get();
      }
    }
  }

  private static String decoded(Object base64) {
    return base64 == null
        ? null
        : new String(Base64.getDecoder().decode(base64.toString()), StandardCharsets.UTF_8);
  }

  @Test
  void shouldRefuseWhatIsNotCarriedOutAtSubmit() throws Exception {
    String a = source("refused", 1);
    Api.Answer cdc =
        api.sql(
            "CREATE FLOW cdc_"
                + suffix
                + " AS AUTO CDC INTO x FROM STREAM "
                + a
                + " KEYS (id) SEQUENCE BY amount TRACK HISTORY ON (id)",
            "examples",
            DATABASE);
    Api.Answer ignore =
        api.sql(
            "CREATE MATERIALIZED TABLE ignoring_"
                + suffix
                + " WITH ('error-handling.mode' = 'log') FRESHNESS = INTERVAL '1' DAY"
                + " REFRESH_MODE = FULL AS SELECT id FROM "
                + a,
            "examples",
            DATABASE);
    Api.Answer location =
        api.sql(
            "CREATE TABLE located_"
                + suffix
                + " LOCATION '/tmp/x' FLOW INSERT BY NAME SELECT id FROM "
                + a,
            "examples",
            DATABASE);
    Api.Answer property =
        api.sql(
            "CREATE TABLE props_"
                + suffix
                + " TBLPROPERTIES ('delta.appendOnly' = 'true') FLOW INSERT BY NAME SELECT id FROM "
                + a,
            "examples",
            DATABASE);

    assertThat(cdc.status()).as(cdc.text()).isEqualTo(400);
    assertThat(cdc.text()).contains("TRACK HISTORY ON needs STORED AS SCD TYPE 2");
    assertThat(ignore.status()).as(ignore.text()).isEqualTo(400);
    assertThat(ignore.text()).contains("error-handling.mode");
    assertThat(location.status()).as(location.text()).isEqualTo(400);
    assertThat(location.text()).contains("LOCATION");
    assertThat(property.status()).as(property.text()).isEqualTo(400);
    assertThat(property.text()).contains("delta.appendOnly");
  }

  // --- helpers

  private JsonNode ok(String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  private static String tables() {
    return "/v1/catalogs/examples/databases/" + DATABASE + "/materialized-tables/";
  }

  private JsonNode status(String table) {
    return api.get(tables() + table).body().path("status");
  }

  private String awaitTopic(String table) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> status(table).path("topic").path("name").isString());
    return status(table).path("topic").path("name").asString();
  }

  /** The phase of one flow of the table. */
  private String flowPhase(String table, String flow) {
    for (JsonNode f : api.get(tables() + table + "/flows").body().path("items")) {
      if (f.path("metadata").path("name").asString().equals(flow)) {
        return f.path("status").path("phase").asString();
      }
    }
    throw new AssertionError("no flow " + flow + " of " + table);
  }

  private static int columnIndex(JsonNode result, String column) {
    List<String> columns = result.path("columns").valueStream().map(JsonNode::asString).toList();
    return columns.indexOf(column);
  }

  private JsonNode flow(String table, String flow) {
    for (JsonNode f : api.get(tables() + table + "/flows").body().path("items")) {
      if (f.path("metadata").path("name").asString().equals(flow)) {
        return f.path("status");
      }
    }
    throw new AssertionError("no flow " + flow + " of " + table);
  }

  /** Flow name to its running job's id, once every flow runs. */
  private Map<String, String> flowJobs(String table) {
    Map<String, String> jobs = new TreeMap<>();
    for (JsonNode f : api.get(tables() + table + "/flows").body().path("items")) {
      jobs.put(
          f.path("metadata").path("name").asString(),
          f.path("status").path("job").path("id").asString(null));
    }
    return jobs;
  }

  private Map<String, long[]> expectationCounts(String table) {
    Map<String, long[]> counts = new HashMap<>();
    for (JsonNode e : api.get(tables() + table + "/expectations").body().path("expectations")) {
      counts.put(
          e.path("expectation").asString(),
          new long[] {e.path("passedRecords").asLong(), e.path("failedRecords").asLong()});
    }
    return counts;
  }

  static double amount(int i) {
    return (i * 37 % 100) + 0.5;
  }

  /** A one-partition topic with {@code count} JSON rows {@code <prefix>-<i>}, and its table. */
  private String source(String prefix, int count) throws Exception {
    String table = prefix + "_src_" + suffix;
    jsonSource(table, "pipeline-" + prefix + "-" + suffix, "id STRING, amount DOUBLE");
    write(prefix, 0, count);
    return table;
  }

  /** Rows {@code from} to {@code from + count - 1} into the topic of source {@code prefix}. */
  private void write(String prefix, int from, int count) throws Exception {
    String topic = "pipeline-" + prefix + "-" + suffix;
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = from; i < from + count; i++) {
        producer.send(
            new ProducerRecord<>(
                topic,
                null,
                JsonMapper.shared()
                    .writeValueAsString(Map.of("id", prefix + "-" + i, "amount", amount(i)))));
      }
    }
  }

  /** The table's rows, read committed, until {@code count} arrived or 20 s passed. */
  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> rows(String topic, int count) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String value : TopicReader.values(kafka, topic, count, Duration.ofSeconds(20), true)) {
      rows.add(JsonMapper.shared().readValue(value, Map.class));
    }
    return rows;
  }
}
