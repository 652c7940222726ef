package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.flinkformat.Expectations;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PipelinePlanTest {

  static final List<FlinkSql.Column> COLUMNS =
      List.of(
          new FlinkSql.Column("customer_id", "INT", false),
          new FlinkSql.Column("orders", "BIGINT", false));

  static PipelinePlan plan(String sql) {
    return new PipelinePlan(
        new ObjectName("c", "d", "t"),
        "t",
        "tributary-x-v1",
        Defaults.effective(definition(sql)),
        COLUMNS,
        "kafka:9092",
        "http://registry:8081/apis/ccompat/v7");
  }

  @Test
  void shouldMapTheKafkaOptionsToTopicConfigs() {
    PipelinePlan p =
        plan(
            "CREATE MATERIALIZED TABLE t DISTRIBUTED INTO 3 BUCKETS WITH ('kafka.retention.time' = '30 d',"
                + " 'kafka.retention.size' = '1 gb', 'kafka.max-message-size' = '2 mb', 'kafka.compaction.time' = '1 h',"
                + " 'kafka.cleanup-policy' = 'delete-compact') AS SELECT 1");

    assertThat(p.topic().partitions()).isEqualTo(3);
    assertThat(p.topic().configs())
        .containsEntry("cleanup.policy", "compact,delete")
        .containsEntry("retention.ms", "2592000000")
        .containsEntry("retention.bytes", "1073741824")
        .containsEntry("max.message.bytes", "2097152")
        .containsEntry("min.compaction.lag.ms", "3600000");
  }

  @Test
  void shouldKeyAnUpsertTableByItsPrimaryKey() {
    PipelinePlan p =
        plan(
            "CREATE MATERIALIZED TABLE t (customer_id INT, orders BIGINT NOT NULL, PRIMARY KEY (customer_id) NOT ENFORCED)"
                + " AS SELECT customer_id, COUNT(*) AS orders FROM o GROUP BY customer_id");

    assertThat(p.keyColumns()).containsExactly("customer_id");
    assertThat(p.topic().configs()).containsEntry("cleanup.policy", "compact");
    assertThat(p.subjects())
        .extracting(PipelinePlan.Subject::name)
        .containsExactly("t-key", "t-value");
    String sink = p.jobStatements(Duration.ofMinutes(15)).get(0);
    assertThat(sink)
        .contains(
            "'connector' = 'upsert-kafka'",
            "PRIMARY KEY (`customer_id`) NOT ENFORCED",
            "'sink.delivery-guarantee' = 'exactly-once'",
            "'sink.transactional-id-prefix' = 'tributary-x-v1'");
    assertThat(p.jobStatements(Duration.ofMinutes(15), "tributary-refresh-x").get(0))
        .contains("'sink.transactional-id-prefix' = 'tributary-refresh-x'")
        .doesNotContain("tributary-x-v1");
    assertThat(p.sessionProperties("file:///sp"))
        .containsEntry("pipeline.name", "tributary-x-v1")
        .containsEntry("execution.state-recovery.path", "file:///sp")
        .containsEntry("restart-strategy.type", "none");
  }

  @Test
  void shouldPassTheResolvedSchemaIdsToTheServicesOwnWritersOnly() {
    PipelinePlan json =
        plan(
            "CREATE MATERIALIZED TABLE t (customer_id INT, orders BIGINT NOT NULL, PRIMARY KEY (customer_id) NOT ENFORCED)"
                + " AS SELECT customer_id, COUNT(*) AS orders FROM o GROUP BY customer_id");
    assertThat(json.idsPassed())
        .extracting(PipelinePlan.Subject::name)
        .containsExactly("t-key", "t-value");
    assertThat(
            json.jobStatements(Duration.ofMinutes(15), "p", Map.of("t-key", 7, "t-value", 8))
                .get(0))
        .contains("'key.json-confluent.schema-id' = '7'", "'value.json-confluent.schema-id' = '8'");
    assertThat(json.jobStatements(Duration.ofMinutes(15), "p", Map.of("t-value", 8)).get(0))
        .contains("'value.json-confluent.schema-id' = '8'")
        .doesNotContain("key.json-confluent.schema-id");
    assertThat(json.jobStatements(Duration.ofMinutes(15)).get(0)).doesNotContain("schema-id");

    PipelinePlan avro =
        plan("CREATE MATERIALIZED TABLE t WITH ('value.format' = 'avro-registry') AS SELECT 1");
    assertThat(avro.idsPassed()).isEmpty();
    assertThat(avro.jobStatements(Duration.ofMinutes(15), "p", Map.of("t-value", 8)).get(0))
        .doesNotContain("schema-id");

    PipelinePlan retract =
        plan("CREATE MATERIALIZED TABLE t WITH ('changelog.mode' = 'retract') AS SELECT 1 AS a");
    assertThat(retract.jobStatements(Duration.ofMinutes(15), "p", Map.of("t-value", 9)).get(0))
        .contains("'value.debezium-json-confluent.schema-id' = '9'");
  }

  @Test
  void shouldWriteTheConfluentWireFormatWithTheRegisteredSchemaForAvroRegistry() {
    PipelinePlan p =
        plan("CREATE MATERIALIZED TABLE t WITH ('value.format' = 'avro-registry') AS SELECT 1");

    SchemaRegistry.Schema value = p.subjects().get(0).schema();
    assertThat(p.jobStatements(Duration.ofMinutes(15)).get(0))
        .contains(
            "'value.format' = 'avro-confluent'",
            "'value.avro-confluent.url' = 'http://registry:8081/apis/ccompat/v7'",
            "'value.avro-confluent.subject' = 't-value'",
            "'connector' = 'kafka'")
        .contains("'value.avro-confluent.schema' = " + Printer.string(value.text()))
        .doesNotContain("key.fields");
    assertThat(value.type()).isEqualTo(SchemaRegistry.SchemaType.AVRO);
    assertThat(value.text())
        .contains("\"type\":\"record\"", "\"name\":\"orders\"", "\"type\":\"long\"");
  }

  @Test
  void shouldStartSourcesWhereStartModeSays() {
    Instant now = Instant.parse("2026-11-30T10:00:00Z");

    assertThat(plan("CREATE MATERIALIZED TABLE t AS SELECT 1").sourceStartOptions(now))
        .containsEntry("scan.startup.mode", "earliest-offset");
    assertThat(
            plan("CREATE MATERIALIZED TABLE t START_MODE = FROM_NOW(INTERVAL '1' HOUR) AS SELECT 1")
                .sourceStartOptions(now))
        .containsEntry("scan.startup.mode", "timestamp")
        .containsEntry(
            "scan.startup.timestamp-millis", String.valueOf(now.minusSeconds(3600).toEpochMilli()));
    assertThat(
            plan("CREATE MATERIALIZED TABLE t START_MODE = FROM_TIMESTAMP('2026-01-01 00:00:00') AS SELECT 1")
                .sourceStartOptions(now))
        .containsEntry(
            "scan.startup.timestamp-millis",
            String.valueOf(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli()));
  }

  @Test
  void shouldTakeFreshnessAsTheCheckpointInterval() {
    assertThat(
            plan("CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '30' SECOND AS SELECT 1")
                .checkpointInterval())
        .hasSeconds(30);
    assertThat(plan("CREATE MATERIALIZED TABLE t AS SELECT 1").checkpointInterval()).hasMinutes(3);
  }

  @Test
  void shouldRefuseAFormatTheClusterCannotWrite() {
    PipelinePlan p =
        plan("CREATE MATERIALIZED TABLE t WITH ('value.format' = 'proto-registry') AS SELECT 1");

    assertThatThrownBy(() -> p.jobStatements(Duration.ofMinutes(15)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("proto-registry");
  }

  @Test
  void shouldNameTheExpectationsFunctionOfTheFlinkFormatJar() {
    assertThat(PipelinePlan.EXPECTATIONS_CLASS).isEqualTo(Expectations.class.getName());
    assertThat(PipelinePlan.EXPECTATIONS_FUNCTION).isEqualTo(Expectations.SQL_NAME);
  }

  static MaterializedTableDefinition definition(String sql) {
    return ((Statement.CreateMaterializedTable) Parser.parse(sql)).definition();
  }
}
