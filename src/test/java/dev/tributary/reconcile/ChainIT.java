package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.RegistrySchemas;
import dev.tributary.local.TopicReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tables over tables, compared row by row with what the source rows say they must hold: a fixed set
 * of orders (written here, so the expected result is known), an append filter over them, an upsert
 * aggregate over the filter (keyed by its GROUP BY column, not declared) and a filter over the
 * aggregate; in JSON and in Avro, both with the Confluent framing. And a retract table read
 * downstream gives the same rows as its upsert twin.
 */
@TributaryIT
class ChainIT {

  static final int ORDERS = 210;
  static final int CUSTOMERS = 7;

  @LocalServerPort int port;
  Api api;
  String suffix;
  String kafka;

  @BeforeEach
  void setUp() throws Exception {
    api = new Api(port);
    kafka = LocalStack.get().kafkaBootstrapServers();
    suffix = UUID.randomUUID().toString().substring(0, 6);
    List<Map<String, Object>> orders = new ArrayList<>();
    for (int i = 0; i < ORDERS; i++) {
      orders.add(Map.of("order_id", "o" + i, "customer_id", customer(i), "price", price(i)));
    }
    String topic = sourceTopic("chain-orders-" + suffix, orders);
    sourceTable(
        DATABASE,
        "chain_orders_" + suffix,
        "order_id STRING, customer_id INT, price DOUBLE",
        topic);
  }

  /** A one-partition topic holding the rows as JSON, in order. */
  private String sourceTopic(String topic, List<Map<String, Object>> rows) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (Map<String, Object> row : rows) {
        producer.send(
            new ProducerRecord<>(topic, null, JsonMapper.shared().writeValueAsString(row)));
      }
    }
    return topic;
  }

  /** A source table over a JSON topic, read from the beginning. */
  private void sourceTable(String database, String name, String columns, String topic) {
    Api.Answer answer =
        api.sql(
            "CREATE TABLE "
                + name
                + " ("
                + columns
                + ") WITH ('connector' = 'kafka', 'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + kafka
                + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')",
            "examples",
            database);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", DATABASE);
  }

  /** The tests' own database, so that their source tables stay out of the example one. */
  static final String DATABASE = "chains";

  private void ok(String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }

  /**
   * Waits until the table runs. A table over another one is created once that one runs: its
   * columns, which the query's columns come from, are known when it is provisioned.
   */
  private void awaitPhase(String table, String phase) {
    api.awaitPhase(DATABASE, table, phase);
  }

  static int customer(int i) {
    return i % CUSTOMERS;
  }

  static double price(int i) {
    return (i * 37 % 100) + 0.5;
  }

  @ParameterizedTest
  @ValueSource(strings = {"json-registry", "avro-registry"})
  void shouldCarryEveryRowThroughAChainOfThreeTables(String format) throws Exception {
    String formats = "WITH ('key.format' = '" + format + "', 'value.format' = '" + format + "')";
    String big = "chain_big_" + suffix;
    String perCustomer = "chain_per_customer_" + suffix;
    String regulars = "chain_regulars_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + big
            + " FRESHNESS = INTERVAL '1' SECOND WITH ('value.format' = '"
            + format
            + "') AS SELECT order_id, customer_id, price FROM chain_orders_"
            + suffix
            + " WHERE price > 20");
    awaitPhase(big, "RUNNING");
    ok(
        "CREATE MATERIALIZED TABLE "
            + perCustomer
            + " FRESHNESS = INTERVAL '1' SECOND "
            + formats
            + " AS SELECT customer_id, COUNT(*) AS n, SUM(price) AS total FROM "
            + big
            + " GROUP BY customer_id");
    awaitPhase(perCustomer, "RUNNING");
    ok(
        "CREATE MATERIALIZED TABLE "
            + regulars
            + " (PRIMARY KEY (customer_id) NOT ENFORCED) FRESHNESS = INTERVAL '1' SECOND "
            + formats
            + " AS SELECT customer_id, n, total FROM "
            + perCustomer
            + " WHERE n >= 24");
    awaitPhase(regulars, "RUNNING");

    // What the source rows say each table must hold.
    Map<String, Map<String, Object>> expectedBig = new TreeMap<>();
    Map<Integer, Long> counts = new TreeMap<>();
    Map<Integer, Double> totals = new TreeMap<>();
    for (int i = 0; i < ORDERS; i++) {
      if (price(i) > 20) {
        expectedBig.put("o" + i, row("customer_id", (long) customer(i), "price", price(i)));
        counts.merge(customer(i), 1L, Long::sum);
        totals.merge(customer(i), price(i), Double::sum);
      }
    }
    Map<String, Map<String, Object>> expectedPerCustomer = new TreeMap<>();
    Map<String, Map<String, Object>> expectedRegulars = new TreeMap<>();
    counts.forEach(
        (c, n) -> {
          Map<String, Object> r = row("n", n, "total", totals.get(c));
          expectedPerCustomer.put(String.valueOf(c), r);
          if (n >= 24) {
            expectedRegulars.put(String.valueOf(c), r);
          }
        });
    assertThat(expectedRegulars).isNotEmpty().hasSizeLessThan(expectedPerCustomer.size());

    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              // The append table: every row once, none twice.
              List<Map<String, Object>> rows =
                  TopicReader.bytes(kafka, big, expectedBig.size(), Duration.ofSeconds(5)).stream()
                      .map(this::decode)
                      .toList();
              Map<String, Map<String, Object>> byId = new TreeMap<>();
              for (Map<String, Object> r : rows) {
                byId.put(
                    String.valueOf(r.get("order_id")),
                    row("customer_id", r.get("customer_id"), "price", r.get("price")));
              }
              assertThat(rows).hasSize(expectedBig.size());
              assertThat(byId).isEqualTo(expectedBig);
            });
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(compacted(perCustomer, "n", "total")).isEqualTo(expectedPerCustomer);
              assertThat(compacted(regulars, "n", "total")).isEqualTo(expectedRegulars);
            });
    // SELECT and the preview decode the records as they were written, Avro included.
    assertThat(selected(perCustomer)).isEqualTo(expectedPerCustomer);
    JsonNode preview =
        api.get(
                "/v1/catalogs/examples/databases/"
                    + DATABASE
                    + "/materialized-tables/"
                    + regulars
                    + "/preview?limit=100")
            .body();
    Map<String, Map<String, Object>> previewed = new TreeMap<>();
    preview
        .path("rows")
        .forEach(
            r ->
                previewed.put(
                    r.path("key").path("customer_id").asString(),
                    row(
                        "n",
                        r.path("value").path("n").asLong(),
                        "total",
                        r.path("value").path("total").asDouble())));
    assertThat(previewed).as(preview.toString()).isEqualTo(expectedRegulars);
  }

  /** {@code SELECT customer_id, n, total FROM table}, by customer. */
  private Map<String, Map<String, Object>> selected(String table) {
    Api.Answer answer = api.sql("SELECT customer_id, n, total FROM " + table, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    Map<String, Map<String, Object>> rows = new TreeMap<>();
    answer
        .body()
        .path("results")
        .path(0)
        .path("rows")
        .forEach(
            r ->
                rows.put(
                    r.path(0).asString(),
                    row("n", r.path(1).asLong(), "total", r.path(2).asDouble())));
    return rows;
  }

  @Test
  void shouldCreateAChainOfTablesInOneScript() {
    // The second and third tables read tables that the same script creates: validated over
    // their queries, and started once what they read is provisioned.
    String big = "script_big_" + suffix;
    String perCustomer = "script_per_customer_" + suffix;
    String regulars = "script_regulars_" + suffix;
    ok(
        "CREATE MATERIALIZED TABLE "
            + big
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id, customer_id, price FROM"
            + " chain_orders_"
            + suffix
            + " WHERE price > 20;\n"
            + "CREATE MATERIALIZED TABLE "
            + perCustomer
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT customer_id, COUNT(*) AS n, SUM(price)"
            + " AS total FROM "
            + big
            + " GROUP BY customer_id;\n"
            + "CREATE MATERIALIZED TABLE "
            + regulars
            + " (PRIMARY KEY (customer_id) NOT ENFORCED) FRESHNESS = INTERVAL '1' SECOND AS"
            + " SELECT customer_id, n, total FROM "
            + perCustomer
            + " WHERE n >= 24");
    // A typo in a table over a table of the same script is still refused at submit.
    Api.Answer typo =
        api.sql(
            "CREATE MATERIALIZED TABLE script_typo_"
                + suffix
                + " AS SELECT nosuch FROM "
                + perCustomer,
            "examples",
            DATABASE);
    assertThat(typo.status()).as(typo.text()).isEqualTo(400);
    assertThat(typo.text()).contains("nosuch");

    awaitPhase(regulars, "RUNNING");
    Map<Integer, Long> counts = new TreeMap<>();
    Map<Integer, Double> totals = new TreeMap<>();
    for (int i = 0; i < ORDERS; i++) {
      if (price(i) > 20) {
        counts.merge(customer(i), 1L, Long::sum);
        totals.merge(customer(i), price(i), Double::sum);
      }
    }
    Map<String, Map<String, Object>> expected = new TreeMap<>();
    counts.forEach(
        (c, n) -> {
          if (n >= 24) {
            expected.put(String.valueOf(c), row("n", n, "total", totals.get(c)));
          }
        });
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(() -> assertThat(compacted(regulars, "n", "total")).isEqualTo(expected));
    String events =
        api.get(
                "/v1/catalogs/examples/databases/"
                    + DATABASE
                    + "/materialized-tables/"
                    + regulars
                    + "/events")
            .text();
    assertThat(events).doesNotContain("JobFailed").doesNotContain("OperationFailed");
  }

  @Test
  void shouldReadARetractTableDownstreamAsItsUpsertTwin() throws Exception {
    String upsert = "chain_counts_upsert_" + suffix;
    String retract = "chain_counts_retract_" + suffix;
    String query =
        " AS SELECT customer_id, COUNT(*) AS n, SUM(price) AS total FROM chain_orders_"
            + suffix
            + " WHERE price > 20 GROUP BY customer_id";
    ok("CREATE MATERIALIZED TABLE " + upsert + " FRESHNESS = INTERVAL '1' SECOND" + query);
    ok(
        "CREATE MATERIALIZED TABLE "
            + retract
            + " FRESHNESS = INTERVAL '1' SECOND WITH ('changelog.mode' = 'retract')"
            + query);
    awaitPhase(upsert, "RUNNING");
    awaitPhase(retract, "RUNNING");
    String fromUpsert = "chain_from_upsert_" + suffix;
    String fromRetract = "chain_from_retract_" + suffix;
    for (String[] pair : new String[][] {{fromUpsert, upsert}, {fromRetract, retract}}) {
      ok(
          "CREATE MATERIALIZED TABLE "
              + pair[0]
              + " (PRIMARY KEY (customer_id) NOT ENFORCED) FRESHNESS = INTERVAL '1' SECOND AS"
              + " SELECT customer_id, n, total FROM "
              + pair[1]);
    }
    awaitPhase(fromUpsert, "RUNNING");
    awaitPhase(fromRetract, "RUNNING");
    Map<String, Map<String, Object>> expected = new TreeMap<>();
    for (int i = 0; i < ORDERS; i++) {
      if (price(i) > 20) {
        Map<String, Object> r =
            expected.computeIfAbsent(
                String.valueOf(customer(i)), c -> new LinkedHashMap<>(row("n", 0L, "total", 0.0)));
        r.put("n", (Long) r.get("n") + 1);
        r.put("total", (Double) r.get("total") + price(i));
      }
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(compacted(fromUpsert, "n", "total")).isEqualTo(expected);
              assertThat(compacted(fromRetract, "n", "total")).isEqualTo(expected);
            });
    // A SELECT applies the retract table's changes: the rows its upsert twin holds.
    assertThat(selected(retract)).isEqualTo(expected).isEqualTo(selected(upsert));
  }

  @Test
  void shouldRunSeed003sDashboardVerbatimKeyedByItsGroupByColumn() throws Exception {
    // Seed 003's realtime_dashboard over an orders table with the columns it uses.
    String database = "seed003_" + suffix;
    String now =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .format(LocalDateTime.now(ZoneOffset.UTC));
    List<Map<String, Object>> orders = new ArrayList<>();
    Map<String, Map<String, Object>> expected = new TreeMap<>();
    for (int i = 0; i < 60; i++) {
      String category = List.of("books", "games", "tools").get(i % 3);
      double amount = i + 0.25;
      orders.add(Map.of("category", category, "amount", amount, "event_time", now));
      Map<String, Object> r =
          expected.computeIfAbsent(
              category, c -> new LinkedHashMap<>(row("EXPR$1", 0L, "EXPR$2", 0.0)));
      r.put("EXPR$1", (Long) r.get("EXPR$1") + 1);
      r.put("EXPR$2", normal((Double) r.get("EXPR$2") + amount));
    }
    sourceTable(
        database,
        "orders",
        "category STRING, amount DOUBLE, event_time TIMESTAMP(3)",
        sourceTopic("seed003-orders-" + suffix, orders));
    String seed = Files.readString(Path.of("src/test/resources/sql/seeds/003-03-realtime.sql"));
    Api.Answer created = api.sql(seed, "examples", database);
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    try {
      api.awaitPhase(database, "realtime_dashboard", "RUNNING");
      // Keyed by the GROUP BY column, as SHOW CREATE says.
      Api.Answer show =
          api.sql("SHOW CREATE MATERIALIZED TABLE realtime_dashboard", "examples", database);
      assertThat(show.text()).contains("PRIMARY KEY (`category`) NOT ENFORCED");
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () ->
                  assertThat(compactedBy("realtime_dashboard", "category", "EXPR$1", "EXPR$2"))
                      .isEqualTo(expected));
    } finally {
      api.dropMaterializedTables("examples", database);
    }
  }

  /** A topic read as compaction would leave it: the newest value per key, tombstones removed. */
  private Map<String, Map<String, Object>> compacted(String topic, String... columns) {
    return compactedBy(topic, "customer_id", columns);
  }

  private Map<String, Map<String, Object>> compactedBy(
      String topic, String keyColumn, String... columns) {
    Map<String, Map<String, Object>> view = new TreeMap<>();
    for (var record : TopicReader.records(kafka, topic, Integer.MAX_VALUE, Duration.ofSeconds(4))) {
      String key = String.valueOf(decode(record.key()).get(keyColumn));
      if (record.value() == null) {
        view.remove(key);
        continue;
      }
      Map<String, Object> value = decode(record.value());
      Map<String, Object> r = new LinkedHashMap<>();
      for (String c : columns) {
        r.put(c, value.get(c));
      }
      view.put(key, r);
    }
    return view;
  }

  private static Map<String, Object> row(String a, Object x, String b, Object y) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put(a, normal(x));
    r.put(b, normal(y));
    return r;
  }

  /** Numbers compared by value: integers as long, others rounded to 6 places. */
  private static Object normal(Object v) {
    if (v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof Number n) {
      return Math.round(n.doubleValue() * 1e6) / 1e6;
    }
    return v == null ? null : v.toString();
  }

  private final Map<Integer, JsonNode> schemas = new ConcurrentHashMap<>();

  /** A record in the Confluent wire format, decoded with the schema its id names. */
  private Map<String, Object> decode(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    assertThat(buffer.get()).as("magic byte").isZero();
    int id = buffer.getInt();
    JsonNode registered = schemas.computeIfAbsent(id, RegistrySchemas::byId);
    Map<String, Object> row = new HashMap<>();
    if ("JSON".equals(registered.path("schemaType").asString())) {
      JsonNode value = JsonMapper.shared().readTree(TopicReader.text(bytes));
      for (String name : value.propertyNames()) {
        JsonNode v = value.path(name);
        row.put(
            name,
            v.isNull()
                ? null
                : v.isIntegralNumber() ? v.asLong() : v.isNumber() ? v.asDouble() : v.asString());
      }
    } else {
      Schema schema = new Schema.Parser().parse(registered.path("schema").asString());
      try {
        GenericRecord record =
            new GenericDatumReader<GenericRecord>(schema)
                .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
        schema.getFields().forEach(f -> row.put(f.name(), normal(record.get(f.name()))));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    row.replaceAll((k, v) -> normal(v));
    return row;
  }
}
