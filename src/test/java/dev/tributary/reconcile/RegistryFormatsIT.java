package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.RegistrySchemas;
import dev.tributary.local.TopicReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What registry-format topics hold, byte by byte: the Confluent wire format (magic byte 0, a 4-byte
 * schema id the registry resolves, then the Avro binary or the JSON of that schema), decoded here
 * with the schema fetched by that id; and a table over them reads those records as rows.
 */
@TributaryIT
class RegistryFormatsIT {

  static final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", "marketplace");
  }

  @Test
  void shouldWriteTheConfluentWireFormatAndReadItDownstream() throws Exception {
    // Seed 000-02's table, with a freshness of a second so that its rows commit quickly.
    api.ok(
        Files.readString(Path.of("src/test/resources/sql/seeds/000-02.sql"))
            .replace("WITH (", "FRESHNESS = INTERVAL '1' SECOND\nWITH ("));
    api.awaitPhase("orders_avro", "RUNNING");
    String kafka = LocalStack.get().kafkaBootstrapServers();
    List<byte[]> records = TopicReader.bytes(kafka, "orders_avro", 5, Duration.ofSeconds(60));
    assertThat(records).hasSizeGreaterThanOrEqualTo(5);
    // The source as it is now: every order the table's records can hold (read for 10 s).
    Map<String, JsonNode> source = new HashMap<>();
    for (JsonNode order : ExampleCatalog.orders(kafka, Duration.ofSeconds(10))) {
      source.put(order.path("order_id").asString(), order);
    }

    Map<Integer, Schema> schemas = new HashMap<>();
    for (byte[] record : records) {
      ByteBuffer buffer = ByteBuffer.wrap(record);
      assertThat(buffer.get()).as("magic byte").isZero();
      int id = buffer.getInt();
      Schema schema = schemas.computeIfAbsent(id, RegistryFormatsIT::schema);
      GenericRecord row =
          new GenericDatumReader<GenericRecord>(schema)
              .read(null, DecoderFactory.get().binaryDecoder(record, 5, record.length - 5, null));
      JsonNode expected = source.get(row.get("order_id").toString());
      assertThat(expected).as("a source order: " + row + " (schema " + id + ")").isNotNull();
      assertThat(row.get("customer_id")).isEqualTo(expected.path("customer_id").asInt());
      assertThat((Double) row.get("price")).isEqualTo(expected.path("price").asDouble());
    }
    assertThat(schemas).as("one schema id, the registered one").hasSize(1);
    int registered =
        api.get(Api.EXAMPLE_TABLES + "orders_avro")
            .body()
            .path("status")
            .path("subjects")
            .path("value")
            .path("schemaId")
            .asInt();
    assertThat(schemas).containsKey(registered);

    // A table over the Avro table reads its records as rows.
    api.ok(
        "CREATE MATERIALIZED TABLE orders_avro_big FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " order_id, price FROM orders_avro WHERE price > 50");
    api.awaitPhase("orders_avro_big", "RUNNING");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> rows =
                  TopicReader.values(kafka, "orders_avro_big", 3, Duration.ofSeconds(3), true);
              assertThat(rows).hasSizeGreaterThanOrEqualTo(3);
              for (String r : rows) {
                JsonNode row = JsonMapper.shared().readTree(r);
                JsonNode order = source.get(row.path("order_id").asString());
                if (order != null) { // orders newer than the snapshot above are not in it
                  assertThat(row.path("price").asDouble())
                      .isEqualTo(order.path("price").asDouble())
                      .isGreaterThan(50);
                }
              }
            });
  }

  /** Columns of every logical type that needs more than a primitive, over the example orders. */
  static final String TYPED_COLUMNS =
      "order_id, CAST(price AS DECIMAL(10, 2)) AS amount, event_time AS placed,"
          + " ARRAY[customer_id, 7] AS ids, MAP['customer', customer_id] AS counts,"
          + " CAST(ROW(product_id, customer_id) AS ROW<product STRING, customer INT>) AS detail";

  @Test
  void shouldCarryDecimalsTimestampsArraysMapsAndRowsInBothRegistryFormats() throws Exception {
    String kafka = LocalStack.get().kafkaBootstrapServers();
    // A type the avro-confluent format cannot write is refused at submit, naming the column.
    Api.Answer ltz =
        api.sql(
            "CREATE MATERIALIZED TABLE typed_ltz WITH ('value.format' = 'avro-registry') AS"
                + " SELECT order_id, CAST(event_time AS TIMESTAMP_LTZ(6)) AS seen FROM orders",
            "examples",
            "marketplace");
    assertThat(ltz.status()).as(ltz.text()).isEqualTo(400);
    assertThat(ltz.body().path("detail").asString())
        .contains("Column 'seen' is TIMESTAMP_LTZ(6)", "CAST it to TIMESTAMP(3)");
    assertThat(api.get(Api.EXAMPLE_TABLES + "typed_ltz").status()).isEqualTo(404);

    api.ok(
        "CREATE MATERIALIZED TABLE typed_avro FRESHNESS = INTERVAL '1' SECOND WITH"
            + " ('value.format' = 'avro-registry') AS SELECT "
            + TYPED_COLUMNS
            + " FROM orders");
    api.ok(
        "CREATE MATERIALIZED TABLE typed_json FRESHNESS = INTERVAL '1' SECOND AS SELECT "
            + TYPED_COLUMNS
            + ", CAST(event_time AS TIMESTAMP_LTZ(6)) AS seen FROM orders");
    api.awaitPhase("typed_avro", "RUNNING");
    api.awaitPhase("typed_json", "RUNNING");
    Map<String, JsonNode> source = new HashMap<>();
    for (JsonNode order : ExampleCatalog.orders(kafka, Duration.ofSeconds(10))) {
      source.put(order.path("order_id").asString(), order);
    }

    // Avro: each record decodes with Avro's own reader against the schema its id names.
    List<byte[]> avro = TopicReader.bytes(kafka, "typed_avro", 5, Duration.ofSeconds(60));
    assertThat(avro).hasSizeGreaterThanOrEqualTo(5);
    GenericData model = new GenericData();
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    int checked = 0;
    for (byte[] record : avro) {
      ByteBuffer buffer = ByteBuffer.wrap(record);
      assertThat(buffer.get()).as("magic byte").isZero();
      Schema schema = schema(buffer.getInt());
      assertThat(nonNull(schema.getField("amount").schema()).getLogicalType())
          .isEqualTo(LogicalTypes.decimal(10, 2));
      GenericRecord row =
          (GenericRecord)
              new GenericDatumReader<Object>(schema, schema, model)
                  .read(
                      null, DecoderFactory.get().binaryDecoder(record, 5, record.length - 5, null));
      JsonNode order = source.get(row.get("order_id").toString());
      if (order == null) {
        continue; // newer than the snapshot of the source
      }
      checked++;
      assertThat(((BigDecimal) row.get("amount")).doubleValue())
          .isCloseTo(order.path("price").asDouble(), Offset.offset(0.005));
      assertThat(row.get("ids").toString())
          .isEqualTo("[" + order.path("customer_id").asInt() + ", 7]");
      assertThat(((Map<?, ?>) row.get("counts")).values().iterator().next())
          .isEqualTo(order.path("customer_id").asInt());
      GenericRecord detail = (GenericRecord) row.get("detail");
      assertThat(detail.get("product").toString()).isEqualTo(order.path("product_id").asString());
      assertThat(detail.get("customer")).isEqualTo(order.path("customer_id").asInt());
    }
    assertThat(checked).isPositive();

    // JSON: every field has the type its registered JSON Schema gives it, nested ones too.
    List<byte[]> json = TopicReader.bytes(kafka, "typed_json", 5, Duration.ofSeconds(60));
    assertThat(json).isNotEmpty();
    ByteBuffer header = ByteBuffer.wrap(json.get(0));
    header.get();
    JsonNode properties = jsonSchema(header.getInt()).path("properties");
    assertThat(properties.path("ids").path("items").path("type").toString()).contains("integer");
    assertThat(properties.path("counts").path("additionalProperties").path("type").toString())
        .contains("integer");
    assertThat(properties.path("detail").path("properties").propertyNames())
        .containsExactly("product", "customer");
    JsonNode first =
        JsonMapper.shared().readTree(new String(json.get(0), 5, json.get(0).length - 5));
    assertThat(first.path("amount").isNumber()).as(first.toString()).isTrue();
    assertThat(first.path("ids").isArray()).isTrue();
    assertThat(first.path("detail").path("customer").isIntegralNumber()).isTrue();
    assertThat(first.path("seen").asString()).matches("\\d{4}-\\d{2}-\\d{2}[ T].*");

    // SELECT reads both as rows: the decimal exact, nested values as JSON text.
    JsonNode rows = api.ok("SELECT order_id, amount, ids, detail FROM typed_avro LIMIT 3");
    JsonNode selected = rows.path(0).path("rows");
    assertThat(selected.size()).as(rows.toString()).isPositive();
    for (JsonNode r : selected) {
      JsonNode order = source.get(r.path(0).asString());
      if (order != null) {
        assertThat(r.path(1).asDouble())
            .isCloseTo(order.path("price").asDouble(), Offset.offset(0.005));
        assertThat(r.path(2).asString()).startsWith("[" + order.path("customer_id").asInt());
        assertThat(r.path(3).asString()).contains(order.path("product_id").asString());
      }
    }
  }

  private static Schema nonNull(Schema schema) {
    return schema.getType() == Schema.Type.UNION
        ? schema.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().get()
        : schema;
  }

  @Test
  void shouldRegisterTheRetractEnvelopeAndReadItDownstreamAsChanges() throws Exception {
    api.ok(
        "CREATE MATERIALIZED TABLE counts_retract FRESHNESS = INTERVAL '1' SECOND WITH"
            + " ('changelog.mode' = 'retract') AS SELECT customer_id, COUNT(*) AS orders FROM"
            + " orders GROUP BY customer_id");
    api.awaitPhase("counts_retract", "RUNNING");
    api.ok(
        "CREATE MATERIALIZED TABLE counts_from_retract (customer_id INT, orders BIGINT NOT NULL,"
            + " PRIMARY KEY (customer_id) NOT ENFORCED) FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " customer_id, orders FROM counts_retract");
    api.awaitPhase("counts_from_retract", "RUNNING");
    String kafka = LocalStack.get().kafkaBootstrapServers();

    // The registered schema is the envelope that is written.
    HttpResponse<String> latest =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        LocalStack.get().registryUrl()
                            + "/subjects/counts_retract-value/versions/latest"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode registered =
        JsonMapper.shared()
            .readTree(JsonMapper.shared().readTree(latest.body()).path("schema").asString());
    assertThat(registered.path("properties").propertyNames())
        .containsExactlyInAnyOrder("before", "after", "op");
    int registeredId = JsonMapper.shared().readTree(latest.body()).path("id").asInt();
    // The envelopes carry that schema's id in the Confluent header.
    assertThat(TopicReader.bytes(kafka, "counts_retract", 3, Duration.ofSeconds(60)))
        .isNotEmpty()
        .allSatisfy(
            b -> {
              ByteBuffer header = ByteBuffer.wrap(b);
              assertThat(header.get()).as("magic byte").isZero();
              assertThat(header.getInt()).as("schema id").isEqualTo(registeredId);
            });
    Map<String, Long> emitted = new HashMap<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> envelopes =
                  TopicReader.values(
                      kafka, "counts_retract", Integer.MAX_VALUE, Duration.ofSeconds(3), true);
              assertThat(envelopes).hasSizeGreaterThanOrEqualTo(3);
              for (String e : envelopes) {
                JsonNode envelope = JsonMapper.shared().readTree(e);
                assertThat(envelope.path("op").asString()).isIn("c", "d");
                JsonNode after = envelope.path("after");
                if (after.isObject()) {
                  assertThat(after.propertyNames())
                      .containsExactlyInAnyOrder("customer_id", "orders");
                  emitted.merge(
                      after.path("customer_id").asString() + "=" + after.path("orders").asLong(),
                      1L,
                      Long::sum);
                }
              }
            });
    // Downstream sees the changes as changes: each of its rows is a state upstream emitted.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              List<String> rows =
                  TopicReader.values(kafka, "counts_from_retract", 3, Duration.ofSeconds(3), true);
              assertThat(rows).hasSizeGreaterThanOrEqualTo(3);
              List<String> upstream =
                  TopicReader.values(
                      kafka, "counts_retract", Integer.MAX_VALUE, Duration.ofSeconds(3), true);
              for (String u : upstream) {
                JsonNode after = JsonMapper.shared().readTree(u).path("after");
                if (after.isObject()) {
                  emitted.put(
                      after.path("customer_id").asString() + "=" + after.path("orders").asLong(),
                      1L);
                }
              }
              for (String r : rows) {
                if (r == null) {
                  continue; // a tombstone
                }
                JsonNode row = JsonMapper.shared().readTree(r);
                assertThat(row.path("customer_id").isNumber()).as(r).isTrue();
                assertThat(emitted)
                    .containsKey(
                        row.path("customer_id").asString() + "=" + row.path("orders").asLong());
              }
            });
  }

  @Test
  void shouldWriteAvroKeysInTheWireFormatUnderTheKeySubject() throws Exception {
    api.ok(
        "CREATE MATERIALIZED TABLE avro_counts (customer_id INT, orders BIGINT NOT NULL, PRIMARY"
            + " KEY (customer_id) NOT ENFORCED) FRESHNESS = INTERVAL '1' SECOND WITH ('key.format'"
            + " = 'avro-registry', 'value.format' = 'avro-registry') AS SELECT customer_id,"
            + " COUNT(*) AS orders FROM orders GROUP BY customer_id");
    api.awaitPhase("avro_counts", "RUNNING");
    JsonNode status = api.get(Api.EXAMPLE_TABLES + "avro_counts").body().path("status");
    int keyId = status.path("subjects").path("key").path("schemaId").asInt();
    int valueId = status.path("subjects").path("value").path("schemaId").asInt();

    var records =
        TopicReader.records(
            LocalStack.get().kafkaBootstrapServers(), "avro_counts", 3, Duration.ofSeconds(60));
    assertThat(records).hasSizeGreaterThanOrEqualTo(3);
    for (var record : records) {
      GenericRecord key = decode(record.key(), keyId);
      GenericRecord value = decode(record.value(), valueId);
      assertThat(key.getSchema().getFields())
          .extracting(Schema.Field::name)
          .containsExactly("customer_id");
      assertThat(value.get("customer_id")).isEqualTo(key.get("customer_id"));
      assertThat((Long) value.get("orders")).isPositive();
    }
  }

  @Test
  void shouldWriteJsonRegistryKeysAndValuesInTheWireFormat() throws Exception {
    // The default format: json-registry for key and value.
    api.ok(
        "CREATE MATERIALIZED TABLE json_counts FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " customer_id, COUNT(*) AS orders, MAX(price) AS top_price FROM orders GROUP BY"
            + " customer_id");
    api.awaitPhase("json_counts", "RUNNING");
    JsonNode status = api.get(Api.EXAMPLE_TABLES + "json_counts").body().path("status");
    int keyId = status.path("subjects").path("key").path("schemaId").asInt();
    int valueId = status.path("subjects").path("value").path("schemaId").asInt();
    assertThat(keyId).isNotEqualTo(valueId);

    var records =
        TopicReader.records(
            LocalStack.get().kafkaBootstrapServers(), "json_counts", 3, Duration.ofSeconds(60));
    assertThat(records).hasSizeGreaterThanOrEqualTo(3);
    JsonNode keySchema = jsonSchema(keyId);
    JsonNode valueSchema = jsonSchema(valueId);
    for (var record : records) {
      JsonNode key = decodeJson(record.key(), keyId, keySchema);
      JsonNode value = decodeJson(record.value(), valueId, valueSchema);
      assertThat(key.propertyNames()).containsExactly("customer_id");
      assertThat(value.path("customer_id")).isEqualTo(key.path("customer_id"));
      assertThat(value.path("orders").asLong()).isPositive();
    }

    // A table over it reads the framed records as rows (the format module in Flink).
    api.ok(
        "CREATE MATERIALIZED TABLE json_counts_big (PRIMARY KEY (customer_id) NOT ENFORCED)"
            + " FRESHNESS = INTERVAL '1' SECOND AS SELECT customer_id, orders FROM json_counts"
            + " WHERE orders > 1");
    api.awaitPhase("json_counts_big", "RUNNING");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        TopicReader.values(
                                LocalStack.get().kafkaBootstrapServers(),
                                "json_counts_big",
                                1,
                                Duration.ofSeconds(3),
                                true)
                            .stream()
                            .filter(v -> v != null)
                            .map(v -> JsonMapper.shared().readTree(v).path("orders").asLong()))
                    .isNotEmpty()
                    .allMatch(n -> n > 1));
  }

  /**
   * Checks the framing and decodes the JSON after it, checked against the JSON Schema fetched by
   * the id: exactly the schema's properties, each of its type, the required ones present.
   */
  private static JsonNode decodeJson(byte[] bytes, int expectedId, JsonNode schema) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    assertThat(buffer.get()).as("magic byte").isZero();
    assertThat(buffer.getInt()).as("schema id").isEqualTo(expectedId);
    JsonNode value = JsonMapper.shared().readTree(TopicReader.text(bytes));
    JsonNode properties = schema.path("properties");
    assertThat(value.propertyNames())
        .containsExactlyInAnyOrderElementsOf(properties.propertyNames());
    for (JsonNode required : schema.path("required")) {
      assertThat(value.path(required.asString()).isNull()).as(required + " is required").isFalse();
    }
    for (String name : properties.propertyNames()) {
      JsonNode field = value.path(name);
      JsonNode type = properties.path(name).path("type");
      List<String> types =
          type.isArray()
              ? type.valueStream().map(JsonNode::asString).toList()
              : List.of(type.asString());
      String actual =
          field.isNull()
              ? "null"
              : field.isIntegralNumber()
                  ? "integer"
                  : field.isNumber() ? "number" : field.isString() ? "string" : "other";
      assertThat(types)
          .as(name + " = " + field + " against " + type)
          .anyMatch(t -> t.equals(actual) || (t.equals("number") && actual.equals("integer")));
    }
    return value;
  }

  private static JsonNode jsonSchema(int id) {
    JsonNode body = RegistrySchemas.byId(id);
    assertThat(body.path("schemaType").asString()).isEqualTo("JSON");
    return JsonMapper.shared().readTree(body.path("schema").asString());
  }

  /** Checks the framing (byte 0, then the expected schema id) and decodes with that schema. */
  private static GenericRecord decode(byte[] bytes, int expectedId) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    assertThat(buffer.get()).as("magic byte").isZero();
    assertThat(buffer.getInt()).as("schema id").isEqualTo(expectedId);
    return new GenericDatumReader<GenericRecord>(schema(expectedId))
        .read(null, DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null));
  }

  private static Schema schema(int id) {
    return new Schema.Parser().parse(RegistrySchemas.byId(id).path("schema").asString());
  }
}
