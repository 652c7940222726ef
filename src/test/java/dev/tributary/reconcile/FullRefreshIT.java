package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.time.Duration;
import java.time.Instant;
import java.time.Year;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * FULL tables on the real stack, judged by their topic's compacted content: after each refresh it
 * must equal the query computed here over the source rows up to the bounds the refresh recorded
 * (its sources' offsets when it started). Freshness is a few seconds, so the schedule fires often.
 */
@TributaryIT
class FullRefreshIT {

  static final String DATABASE = "refreshes";
  static final int CUSTOMERS = 5;

  @LocalServerPort int port;
  Api api;
  String kafka;
  String suffix;
  String sourceTopic;
  String source;
  final List<Map<String, Object>> written = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    api = new Api(port);
    kafka = LocalStack.get().kafkaBootstrapServers();
    suffix = UUID.randomUUID().toString().substring(0, 6);
    sourceTopic = "refresh-orders-" + suffix;
    source = "orders_" + suffix;
    createTopic(sourceTopic, 2);
    ok(
        "CREATE TABLE "
            + source
            + " (order_id STRING, customer_id INT, ds STRING, price DOUBLE) WITH ("
            + "'connector' = 'kafka', 'topic' = '"
            + sourceTopic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')");
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", DATABASE);
  }

  @Test
  void shouldRefreshOnScheduleToTheQueryAtItsBoundsAndTombstoneKeysThatLeftTheResult()
      throws Exception {
    write(0, 30, i -> i % CUSTOMERS, "2024-01-01");
    String table = "spend_" + suffix;
    // Customers with at most 8 orders: a customer that gets more leaves the result.
    JsonNode created =
        ok(
            "CREATE MATERIALIZED TABLE "
                + table
                + " FRESHNESS = INTERVAL '5' SECOND REFRESH MODE = FULL AS SELECT customer_id,"
                + " count(*) AS n, sum(price) AS total FROM "
                + source
                + " GROUP BY customer_id HAVING count(*) <= 8");
    assertThat(created.path(0).path("message").asString())
        .contains("no refresh runs at CREATE", "first scheduled refresh is at");

    JsonNode first = awaitRefreshes(table, 1).get(0);
    assertThat(first.path("trigger").asString()).isIn("SCHEDULE", "CATCH_UP");
    Instant slot = Instant.parse(first.path("scheduledAt").asString());
    assertThat(slot.getEpochSecond() % 5).as("slots of a 5 s cron").isZero();
    assertThat(compacted(table)).isEqualTo(expected(first, 8));
    assertThat(first.path("rowsWritten").asLong()).isEqualTo(CUSTOMERS);

    // Customer 0 gets 10 more orders (16 in all): it leaves the result and is tombstoned.
    write(30, 10, i -> 0, "2024-01-01");
    JsonNode later =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> refreshes(table).get(0),
                r -> "SUCCEEDED".equals(r.path("state").asString()) && bound(r) >= 40);
    Map<Integer, Long> expected = expected(later, 8);
    assertThat(expected).doesNotContainKey(0);
    assertThat(compacted(table)).isEqualTo(expected);
    // Customer 0 is tombstoned once: by the first refresh that read past its 8th order (a
    // refresh may have started while the 10 orders were being written).
    long tombstones =
        refreshes(table).stream()
            .filter(r -> "SUCCEEDED".equals(r.path("state").asString()))
            .filter(r -> bound(r) > 30 && bound(r) <= bound(later))
            .mapToLong(r -> r.path("tombstonesWritten").asLong())
            .sum();
    assertThat(tombstones).isEqualTo(1);

    JsonNode status = api.get(path(table)).body().path("status");
    assertThat(status.path("phase").asString()).isEqualTo("RUNNING");
    assertThat(status.path("refresh").path("refreshMode").asString()).isEqualTo("FULL");
    assertThat(status.path("refresh").path("lastRefresh").asString()).isNotBlank();
    assertThat(status.path("refresh").path("nextRefresh").asString()).isNotBlank();
    JsonNode info =
        ok("SELECT table_name, refresh_mode, last_refresh, next_refresh FROM"
                + " information_schema.materialized_tables WHERE table_name = '"
                + table
                + "'")
            .path(0)
            .path("rows")
            .path(0);
    assertThat(info.path(1).asString()).isEqualTo("FULL");
    assertThat(info.path(2).asString()).isNotBlank();
    assertThat(info.path(3).asString()).isNotBlank();
  }

  @Test
  void shouldRefreshAtCreateOnlyWhenAsked() throws Exception {
    write(0, 15, i -> i % CUSTOMERS, "2024-01-01");
    String query =
        " FRESHNESS = INTERVAL '1' DAY AS SELECT customer_id, count(*) AS n FROM "
            + source
            + " GROUP BY customer_id";
    String asked = "on_create_" + suffix;
    JsonNode created =
        ok("CREATE MATERIALIZED TABLE " + asked + " WITH ('refresh.on-create' = 'true')" + query);
    assertThat(created.path(0).path("message").asString()).contains("a first refresh runs now");
    JsonNode first = awaitRefreshes(asked, 1).get(0);
    assertThat(first.path("trigger").asString()).isEqualTo("ON_CREATE");
    assertThat(counts(asked)).isEqualTo(expectedCounts());
    // Without it, as in Flink, nothing runs until the first firing (a day away) or a REFRESH.
    String quiet = "no_refresh_" + suffix;
    ok("CREATE MATERIALIZED TABLE " + quiet + query);
    api.awaitPhase(DATABASE, quiet, "RUNNING");
    Thread.sleep(3_000);
    assertThat(refreshes(quiet)).isEmpty();
    assertThat(TopicReader.compacted(kafka, topic(quiet))).isEmpty();
  }

  @Test
  void shouldRefreshOnlyThePartitionAskedForAlsoWhileSuspended() throws Exception {
    write(0, 20, i -> i % CUSTOMERS, "2024-01-01");
    write(20, 20, i -> i % CUSTOMERS, "2024-01-02");
    String table = "daily_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " (ds STRING, customer_id INT, n BIGINT, PRIMARY KEY (ds, customer_id) NOT ENFORCED)"
            + " PARTITIONED BY (ds) WITH ('partition.fields.ds.date-formatter' = 'yyyy-MM-dd')"
            + " FRESHNESS = INTERVAL '1' DAY AS SELECT ds, customer_id, count(*) AS n FROM "
            + source
            + " GROUP BY ds, customer_id");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " SUSPEND");
    api.awaitPhase(DATABASE, table, "STOPPED");

    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    JsonNode whole = awaitRefreshes(table, 1).get(0);
    assertThat(whole.path("trigger").asString()).isEqualTo("MANUAL");
    Map<String, Long> before = daily(table);
    assertThat(before).hasSize(2 * CUSTOMERS);

    // New orders on both days; only 2024-01-01 is refreshed.
    write(40, 10, i -> 1, "2024-01-01");
    write(50, 10, i -> 2, "2024-01-02");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH PARTITION (ds = '2024-01-01')");
    JsonNode partial = awaitRefreshes(table, 2).get(0);
    assertThat(partial.path("partition").path("ds").asString()).isEqualTo("2024-01-01");
    assertThat(partial.path("rowsWritten").asLong()).isEqualTo(CUSTOMERS);
    Map<String, Long> after = daily(table);
    assertThat(after.get("2024-01-01/1")).isEqualTo(before.get("2024-01-01/1") + 10);
    assertThat(after.get("2024-01-02/2")).isEqualTo(before.get("2024-01-02/2"));
    assertThat(api.get(path(table)).body().path("status").path("phase").asString())
        .isEqualTo("STOPPED");
  }

  @Test
  void shouldQueueAManualRefreshBehindTheRunningOneAndAnswerTheNextRequestsWithIt()
      throws Exception {
    write(0, 20, i -> i % CUSTOMERS, "2024-01-01");
    String table = "queued_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " FRESHNESS = INTERVAL '1' DAY REFRESH MODE = FULL AS SELECT customer_id,"
            + " count(*) AS n FROM "
            + source
            + " GROUP BY customer_id");
    api.awaitPhase(DATABASE, table, "RUNNING");
    String refreshes = path(table) + "/refreshes";

    // A request while a refresh runs (its bounds taken) waits behind it: 202, its own id.
    JsonNode first = null;
    JsonNode waiting = null;
    for (int attempt = 0; attempt < 3 && waiting == null; attempt++) {
      Api.Answer asked = api.post(refreshes, Map.of());
      assertThat(asked.status()).as(asked.text()).isEqualTo(202);
      String id = asked.body().path("id").asString();
      first =
          await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(20))
              .until(() -> refresh(table, id), r -> !"QUEUED".equals(r.path("state").asString()));
      Api.Answer second = api.post(refreshes, Map.of());
      assertThat(second.status()).as(second.text()).isEqualTo(202);
      if ("WAITING".equals(second.body().path("state").asString())) {
        waiting = second.body();
      } else {
        // The first one ended before the second request: it was queued as a new run instead.
        assertThat(second.body().path("state").asString()).isIn("QUEUED", "RUNNING");
        awaitRefreshes(table, attempt * 2 + 2);
      }
    }
    assertThat(waiting).as("a request while a refresh ran").isNotNull();
    assertThat(waiting.path("number").asLong()).isEqualTo(first.path("number").asLong() + 1);
    assertThat(waiting.path("trigger").asString()).isEqualTo("MANUAL");

    // Another request while one waits is answered with the waiting one, not a new run.
    Api.Answer third = api.post(refreshes, Map.of());
    assertThat(third.status()).as(third.text()).isEqualTo(202);
    assertThat(third.body().path("id").asString()).isEqualTo(waiting.path("id").asString());
    JsonNode viaSql = ok("ALTER MATERIALIZED TABLE " + table + " REFRESH").path(0);
    assertThat(viaSql.path("message").asString())
        .contains("Refresh #" + waiting.path("number").asLong());

    // Asked without a wait, it is answered as it is; with one, once it has ended.
    long waitingNumber = waiting.path("number").asLong();
    String one = refreshes + "/" + waitingNumber;
    Api.Answer now = api.get(one);
    assertThat(now.status()).as(now.text()).isEqualTo(200);
    assertThat(now.body().path("id").asString()).isEqualTo(waiting.path("id").asString());
    assertThat(api.get(one + "?waitSeconds=61").status()).isEqualTo(400);
    assertThat(api.get(refreshes + "/" + (waitingNumber + 1)).status()).isEqualTo(404);
    Api.Answer waited = api.get(one + "?waitSeconds=60");
    assertThat(waited.status()).as(waited.text()).isEqualTo(200);

    // It runs right after the one it waited for, and reads what was there when it started.
    JsonNode ran = waited.body();
    assertThat(ran.path("state").asString()).as(ran.toString()).isEqualTo("SUCCEEDED");
    JsonNode before = refresh(table, first.path("id").asString());
    assertThat(before.path("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(Instant.parse(ran.path("startedAt").asString()))
        .isAfterOrEqualTo(Instant.parse(before.path("endedAt").asString()));
    assertThat(refreshes(table))
        .filteredOn(r -> r.path("number").asLong() > waitingNumber)
        .isEmpty();
    assertThat(counts(table)).isEqualTo(expectedCounts());
  }

  @Test
  void shouldRunAnIntervalFlinkRefusesAtAFixedRateAndRefreshTheSlotsPartition() throws Exception {
    String year = String.valueOf(Year.now(ZoneOffset.UTC).getValue());
    write(0, 20, i -> i % CUSTOMERS, year);
    write(20, 20, i -> i % CUSTOMERS, "1999");
    String table = "yearly_" + suffix;
    // 7 s is no divisor of a minute: Flink refuses it as a cron; here it is a fixed rate.
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " (ds STRING, customer_id INT, n BIGINT, PRIMARY KEY (ds, customer_id) NOT ENFORCED)"
            + " PARTITIONED BY (ds) WITH ('partition.fields.ds.date-formatter' = 'yyyy')"
            + " FRESHNESS = INTERVAL '7' SECOND REFRESH MODE = FULL AS SELECT ds, customer_id,"
            + " count(*) AS n FROM "
            + source
            + " GROUP BY ds, customer_id");
    List<JsonNode> runs = awaitRefreshes(table, 2);
    Instant anchor = Instant.parse("2000-01-01T00:00:00Z");
    for (JsonNode run : runs.subList(0, 2)) {
      Instant slot = Instant.parse(run.path("scheduledAt").asString());
      assertThat((slot.getEpochSecond() - anchor.getEpochSecond()) % 7)
          .as("on the 7 s grid")
          .isZero();
      // The partition of (slot - freshness), formatted 'yyyy': this year's rows only.
      assertThat(run.path("partition").path("ds").asString()).isEqualTo(year);
    }
    Map<String, Long> rows = daily(table);
    assertThat(rows).hasSize(CUSTOMERS).allSatisfy((k, v) -> assertThat(k).startsWith(year + "/"));
  }

  @Test
  void shouldFallBackToFullUnderAutoForAQueryThatCannotRunAsAStream() throws Exception {
    write(0, 25, i -> i % CUSTOMERS, "2024-01-01");
    String query =
        " AS SELECT customer_id, count(*) AS n FROM " + source + " GROUP BY customer_id ORDER BY n";
    // Explicitly CONTINUOUS: Flink's reason, as a 400.
    Api.Answer continuous =
        api.sql(
            "CREATE MATERIALIZED TABLE sorted_c_" + suffix + " REFRESH MODE = CONTINUOUS" + query,
            "examples",
            DATABASE);
    assertThat(continuous.status()).as(continuous.text()).isEqualTo(400);
    assertThat(continuous.text()).contains("Sort on a non-time-attribute field is not supported");
    // Under AUTO (3 minutes: CONTINUOUS by the threshold) it falls back to FULL, with a warning.
    String table = "sorted_" + suffix;
    JsonNode created = ok("CREATE MATERIALIZED TABLE " + table + query);
    assertThat(created.path(0).path("message").asString())
        .contains("WARNING", "falls back to FULL", "Sort on a non-time-attribute field");
    // Stored as planned: FULL, with the freshness AUTO had (not FULL's default of an hour).
    assertThat(showCreate(table)).contains("REFRESH_MODE = FULL", "INTERVAL '3' MINUTE");
    api.awaitPhase(DATABASE, table, "RUNNING");
    Api.Answer refresh =
        api.sql("ALTER MATERIALIZED TABLE " + table + " REFRESH", "examples", DATABASE);
    // The 3-minute schedule may have fired just now: then this one waits behind it.
    assertThat(refresh.status()).as(refresh.text()).isEqualTo(200);
    awaitRefreshes(table, 1);
    assertThat(counts(table)).isEqualTo(expectedCounts());
  }

  @Test
  void shouldPickTheModeByTheThresholdAndSwitchModesKeepingTheTopic() throws Exception {
    write(0, 25, i -> i % CUSTOMERS, "2024-01-01");
    String table = "modes_" + suffix;
    String query = " AS SELECT customer_id, count(*) AS n FROM " + source + " GROUP BY customer_id";
    ok("CREATE MATERIALIZED TABLE " + table + " FRESHNESS = INTERVAL '30' MINUTE" + query);
    JsonNode refresh = api.get(path(table)).body().path("status").path("refresh");
    assertThat(refresh.path("refreshMode").asString()).isEqualTo("FULL");
    assertThat(refresh.path("reason").asString()).contains("AUTO chose FULL");
    assertThat(showCreate(table)).contains("REFRESH_MODE = FULL");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    awaitRefreshes(table, 1);
    assertThat(counts(table)).isEqualTo(expectedCounts());

    // Under the threshold AUTO is CONTINUOUS: a job runs, the topic and its content stay.
    ok("ALTER MATERIALIZED TABLE " + table + " SET FRESHNESS = INTERVAL '2' SECOND");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> api.get(path(table)).body().path("status").path("job").path("id"),
            j -> !j.isMissingNode() && !j.isNull());
    api.awaitPhase(DATABASE, table, "RUNNING");
    write(25, 5, i -> 3, "2024-01-01");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(counts(table)).isEqualTo(expectedCounts()));
    assertThat(
            api.get(path(table))
                .body()
                .path("status")
                .path("refresh")
                .path("refreshMode")
                .asString())
        .isEqualTo("CONTINUOUS");

    // And back: the job stops with a savepoint, the schedule returns, a refresh rewrites the same.
    ok("ALTER MATERIALIZED TABLE " + table + " SET FRESHNESS = INTERVAL '1' HOUR");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        api.get(path(table))
                            .body()
                            .path("status")
                            .path("refresh")
                            .path("nextRefresh")
                            .asString())
                    .isNotBlank());
    write(30, 5, i -> 4, "2024-01-01");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    awaitRefreshes(table, 2);
    assertThat(counts(table)).isEqualTo(expectedCounts());
  }

  @Test
  void shouldRefreshOverAnUpsertTableInStreamingModeWithBoundedSources() throws Exception {
    write(0, 40, i -> i % CUSTOMERS, "2024-01-01");
    String upstream = "totals_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + upstream
            + " FRESHNESS = INTERVAL '2' SECOND AS SELECT customer_id, count(*) AS n FROM "
            + source
            + " GROUP BY customer_id");
    api.awaitPhase(DATABASE, upstream, "RUNNING");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(counts(upstream)).isEqualTo(expectedCounts()));
    String table = "busy_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " (customer_id INT, n BIGINT, PRIMARY KEY (customer_id) NOT ENFORCED)"
            + " FRESHNESS = INTERVAL '1' DAY AS SELECT customer_id, n FROM "
            + upstream
            + " WHERE n >= 8");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    awaitRefreshes(table, 1);
    Map<Integer, Long> expected = new TreeMap<>(expectedCounts());
    expected.values().removeIf(n -> n < 8);
    assertThat(counts(table)).isEqualTo(expected);
    assertThat(events(table)).anyMatch(m -> m.contains("STREAMING with bounded sources"));
  }

  @Test
  void shouldRetryAFailedRefreshThenSuspendTheTableUntilResumed() throws Exception {
    String badTopic = "refresh-bad-" + suffix;
    createTopic(badTopic, 1);
    produce(badTopic, List.of("not json", "{\"customer_id\": 1}"));
    ok(
        "CREATE TABLE bad_"
            + suffix
            + " (customer_id INT) WITH ('connector' = 'kafka', 'topic' = '"
            + badTopic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'format' = 'json')");
    String table = "fragile_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " FRESHNESS = INTERVAL '1' DAY AS SELECT customer_id, count(*) AS n FROM bad_"
            + suffix
            + " GROUP BY customer_id");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    api.awaitPhase(DATABASE, table, "FAILED");
    JsonNode failed = refreshes(table).get(0);
    assertThat(failed.path("state").asString()).isEqualTo("FAILED");
    assertThat(failed.path("attempt").asInt()).isEqualTo(4); // attempts 0..4: five in a row
    assertThat(failed.path("error").asString()).isNotBlank();
    JsonNode ready = condition(table, "Ready");
    assertThat(ready.path("reason").asString()).isEqualTo("RetriesExhausted");
    assertThat(ready.path("message").asString()).contains("RESUME");
    assertThat(api.get(path(table)).body().path("status").path("refresh").has("nextRefresh"))
        .as("the schedule is paused: no next refresh")
        .isFalse();

    // The bad record goes; RESUME runs the schedule again, and a refresh succeeds.
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin
          .deleteRecords(Map.of(new TopicPartition(badTopic, 0), RecordsToDelete.beforeOffset(1)))
          .all()
          .get();
    }
    ok("ALTER MATERIALIZED TABLE " + table + " RESUME");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> refreshes(table).get(0).path("state").asString(), "SUCCEEDED"::equals);
    assertThat(counts(table)).isEqualTo(Map.of(1, 1L));
  }

  @Test
  void shouldStopARefreshAtAFailUpdateViolationWithoutRetrying() throws Exception {
    write(0, 15, i -> i % CUSTOMERS, "2024-01-01");
    String table = "strict_full_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + table
            + " (CONSTRAINT single EXPECT (n < 2) ON VIOLATION FAIL UPDATE)"
            + " FRESHNESS = INTERVAL '1' DAY AS SELECT customer_id, count(*) AS n FROM "
            + source
            + " GROUP BY customer_id");
    api.awaitPhase(DATABASE, table, "RUNNING");
    ok("ALTER MATERIALIZED TABLE " + table + " REFRESH");
    api.awaitPhase(DATABASE, table, "FAILED");
    JsonNode failed = refreshes(table).get(0);
    assertThat(failed.path("state").asString()).isEqualTo("FAILED");
    assertThat(failed.path("attempt").asInt()).isLessThanOrEqualTo(1); // not five attempts
    assertThat(failed.path("error").asString())
        .contains("EXPECTATION_VIOLATION")
        .contains("single");
    assertThat(condition(table, "Ready").path("reason").asString())
        .isEqualTo("ExpectationViolated");
  }

  // --- helpers ---

  private List<String> events(String table) {
    List<String> messages = new ArrayList<>();
    api.get(path(table) + "/events")
        .body()
        .path("items")
        .forEach(e -> messages.add(e.path("message").asString()));
    return messages;
  }

  private JsonNode condition(String table, String type) {
    for (JsonNode c : api.get(path(table)).body().path("status").path("conditions")) {
      if (type.equals(c.path("type").asString())) {
        return c;
      }
    }
    throw new AssertionError("No condition " + type);
  }

  private interface Customer {
    int of(int i);
  }

  /**
   * Writes orders {@code from .. from + count - 1}, keyed by customer (so a customer's orders share
   * a partition).
   */
  private void write(int from, int count, Customer customer, String ds) throws Exception {
    try (KafkaProducer<String, String> producer = producer()) {
      for (int i = from; i < from + count; i++) {
        Map<String, Object> row = new TreeMap<>();
        row.put("order_id", "o" + i);
        row.put("customer_id", customer.of(i));
        row.put("ds", ds);
        row.put("price", (double) (i % 7 + 1));
        written.add(row);
        producer
            .send(
                new ProducerRecord<>(
                    sourceTopic,
                    String.valueOf(customer.of(i)),
                    JsonMapper.shared().writeValueAsString(row)))
            .get();
      }
    }
  }

  private void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
  }

  private KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
        new StringSerializer(),
        new StringSerializer());
  }

  /** Values written in order, unkeyed. */
  private void produce(String topic, List<String> values) throws Exception {
    try (KafkaProducer<String, String> producer = producer()) {
      for (String value : values) {
        producer.send(new ProducerRecord<>(topic, value)).get();
      }
    }
  }

  private JsonNode ok(String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  private static String path(String table) {
    return "/v1/catalogs/examples/databases/" + DATABASE + "/materialized-tables/" + table;
  }

  private String showCreate(String table) {
    return ok("SHOW CREATE MATERIALIZED TABLE " + table)
        .path(0)
        .path("rows")
        .path(0)
        .path(0)
        .asString();
  }

  private List<JsonNode> refreshes(String table) {
    List<JsonNode> items = new ArrayList<>();
    api.get(path(table) + "/refreshes").body().path("items").forEach(items::add);
    return items;
  }

  /** The table's refresh with this id, as the refreshes list shows it now. */
  private JsonNode refresh(String table, String id) {
    return refreshes(table).stream()
        .filter(r -> r.path("id").asString().equals(id))
        .findFirst()
        .orElseThrow();
  }

  /** Waits until {@code n} refreshes succeeded (none failed); newest first. */
  private List<JsonNode> awaitRefreshes(String table, int n) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              List<JsonNode> all = refreshes(table);
              assertThat(all).noneMatch(r -> "FAILED".equals(r.path("state").asString()));
              return all;
            },
            all ->
                all.stream().filter(r -> "SUCCEEDED".equals(r.path("state").asString())).count()
                        >= n
                    && "SUCCEEDED".equals(all.get(0).path("state").asString()));
  }

  /** How many source records a refresh read (the sum of its bounds). */
  private long bound(JsonNode refresh) {
    long total = 0;
    for (JsonNode offset : refresh.path("sourceBounds").path(sourceTopic)) {
      total += offset.asLong();
    }
    return total;
  }

  /** The source rows a refresh read: each partition's records before its recorded bound. */
  private List<Map<String, Object>> readBy(JsonNode refresh) throws Exception {
    JsonNode bounds = refresh.path("sourceBounds").path(sourceTopic);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.records(kafka, sourceTopic, written.size(), Duration.ofSeconds(20))) {
      if (r.offset() < bounds.path(String.valueOf(r.partition())).asLong()) {
        @SuppressWarnings("unchecked")
        Map<String, Object> row =
            JsonMapper.shared().readValue(TopicReader.text(r.value()), Map.class);
        rows.add(row);
      }
    }
    return rows;
  }

  /**
   * The query over what the refresh read: order count per customer, those with at most {@code max}.
   */
  private Map<Integer, Long> expected(JsonNode refresh, int max) throws Exception {
    Map<Integer, Long> counts = new TreeMap<>();
    for (Map<String, Object> row : readBy(refresh)) {
      counts.merge(((Number) row.get("customer_id")).intValue(), 1L, Long::sum);
    }
    counts.values().removeIf(n -> n > max);
    return counts;
  }

  /** Order count per customer over everything written. */
  private Map<Integer, Long> expectedCounts() {
    Map<Integer, Long> counts = new TreeMap<>();
    written.forEach(r -> counts.merge((Integer) r.get("customer_id"), 1L, Long::sum));
    return counts;
  }

  private String topic(String table) {
    return api.get(path(table)).body().path("status").path("topic").path("name").asString();
  }

  /** customer_id -> n of the topic's compacted content. */
  private Map<Integer, Long> compacted(String table) {
    return counts(table);
  }

  private Map<Integer, Long> counts(String table) {
    Map<Integer, Long> counts = new TreeMap<>();
    TopicReader.compacted(kafka, topic(table))
        .values()
        .forEach(
            v -> {
              JsonNode row = JsonMapper.shared().readTree(v);
              counts.put(row.path("customer_id").asInt(), row.path("n").asLong());
            });
    return counts;
  }

  /** "ds/customer_id" -> n of the topic's compacted content. */
  private Map<String, Long> daily(String table) {
    Map<String, Long> rows = new HashMap<>();
    TopicReader.compacted(kafka, topic(table))
        .values()
        .forEach(
            v -> {
              JsonNode row = JsonMapper.shared().readTree(v);
              rows.put(
                  row.path("ds").asString() + "/" + row.path("customer_id").asInt(),
                  row.path("n").asLong());
            });
    return rows;
  }
}
