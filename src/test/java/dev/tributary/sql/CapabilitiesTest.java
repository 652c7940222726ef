package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.system.ErrorCode;
import org.junit.jupiter.api.Test;

/** What cannot take effect is refused at submit, pointing at the clause; the rest passes. */
class CapabilitiesTest {

  private static SqlException refused(String sql) {
    return catchThrowableOfType(
        SqlException.class, () -> Parser.parseScript(sql).forEach(Parser.Parsed::requireSupported));
  }

  private static void accepted(String sql) {
    assertThatCode(() -> Parser.parseScript(sql).forEach(Parser.Parsed::requireSupported))
        .doesNotThrowAnyException();
  }

  @Test
  void shouldTakeDeadLetterTablesForContinuousTablesAndRefuseWhatWouldDoNothing() {
    accepted("CREATE MATERIALIZED TABLE t WITH ('error-handling.mode' = 'log') AS SELECT a FROM s");
    accepted(
        "CREATE MATERIALIZED TABLE t WITH ('error-handling.mode' = 'log',"
            + " 'error-handling.log.target' = 'db.bad_rows') AS SELECT a FROM s");
    SqlException full =
        refused(
            "CREATE MATERIALIZED TABLE t (PRIMARY KEY (a) NOT ENFORCED)\n"
                + "WITH ('error-handling.mode' = 'log')\nFRESHNESS = INTERVAL '1' DAY\n"
                + "REFRESH_MODE = FULL AS SELECT a FROM s");
    assertThat(full.code()).isEqualTo(ErrorCode.UNSUPPORTED_OPTION);
    assertThat(full.line()).isEqualTo(2);
    assertThat(full.getMessage()).contains("FULL");
    SqlException lonelyTarget =
        refused(
            "CREATE MATERIALIZED TABLE t WITH ('error-handling.log.target' = 'bad') AS SELECT 1");
    assertThat(lonelyTarget.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
    assertThat(lonelyTarget.getMessage()).contains("'fail'");
    assertThat(
            refused(
                    "CREATE MATERIALIZED TABLE t WITH ('error-handling.mode' = 'log',"
                        + " 'error-handling.log.target' = 'a.b.c.d') AS SELECT 1")
                .getMessage())
        .contains("[catalog.][database.]table");
    SqlException incremental =
        refused("ALTER MATERIALIZED TABLE t SET ('refresh.incremental' = 'true')");
    assertThat(incremental.code()).isEqualTo(ErrorCode.UNSUPPORTED_OPTION);
    assertThat(incremental.getMessage()).contains("Paimon");
    accepted("ALTER MATERIALIZED TABLE t SET ('refresh.incremental' = 'false')");
  }

  @Test
  void shouldRefuseAFullTableWithoutAKeyAtTheClauseThatMadeItFull() {
    SqlException explicit =
        refused("CREATE MATERIALIZED TABLE t\n  REFRESH MODE = FULL\nAS SELECT 1 AS a");
    assertThat(explicit.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
    assertThat(explicit.getMessage()).contains("needs a key", "PRIMARY KEY", "is declared");
    assertThat(explicit.line()).isEqualTo(2);
    assertThat(explicit.column()).isEqualTo(3);
    // AUTO at the threshold is FULL too; the FRESHNESS clause is pointed at, and says why.
    SqlException auto =
        refused("CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '1' HOUR AS SELECT 1 AS a");
    assertThat(auto.getMessage()).contains("AUTO chose FULL", "at or above the threshold");
    assertThat(auto.column()).isEqualTo(29);
    // A key Flink derives (GROUP BY) or one declared is enough.
    accepted(
        "CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '1' HOUR AS SELECT a, count(*) AS n"
            + " FROM s GROUP BY a");
    accepted(
        "CREATE MATERIALIZED TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED) REFRESH MODE = FULL"
            + " AS SELECT a FROM s");
    accepted("ALTER MATERIALIZED TABLE t REFRESH");
    accepted("ALTER MATERIALIZED TABLE t REFRESH PARTITION (ds = '2024-01-01')");
    accepted(
        "CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '1' HOUR REFRESH MODE = CONTINUOUS"
            + " AS SELECT 1 AS a");
  }

  @Test
  void shouldRefuseWhatAFullTableCannotHonour() {
    String full = "CREATE MATERIALIZED TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED) ";
    assertThat(refused(full + "WITH ('changelog.mode' = 'append') REFRESH MODE = FULL AS SELECT 1"))
        .hasMessageContaining("upsert table");
    assertThat(
            refused(
                full + "WITH ('kafka.cleanup-policy' = 'delete') REFRESH MODE = FULL AS SELECT 1"))
        .hasMessageContaining("compacted");
    assertThat(refused(full + "START_MODE = FROM_NOW REFRESH MODE = FULL AS SELECT 1"))
        .hasMessageContaining("START_MODE");
    // PARTITIONED BY selects what a FULL refresh rewrites; a continuous table has no use for it.
    assertThat(refused("CREATE MATERIALIZED TABLE t PARTITIONED BY (a) AS SELECT 1 AS a"))
        .hasMessageContaining("CONTINUOUS");
    String partitioned =
        "CREATE MATERIALIZED TABLE t (a INT, ds STRING, PRIMARY KEY (a) NOT ENFORCED) ";
    accepted(
        partitioned
            + "PARTITIONED BY (ds) WITH ('partition.fields.ds.date-formatter' = 'yyyy-MM-dd')"
            + " FRESHNESS = INTERVAL '1' DAY AS SELECT 1");
    assertThat(
            refused(
                partitioned
                    + "PARTITIONED BY (ds) WITH ('partition.fields.hr.date-formatter' = 'HH')"
                    + " FRESHNESS = INTERVAL '1' DAY AS SELECT 1"))
        .hasMessageContaining("not in PARTITIONED BY");
    assertThat(
            refused(
                full
                    + "WITH ('refresh.time-zone' = 'Mars/Olympus') REFRESH MODE = FULL AS SELECT 1"))
        .hasMessageContaining("time zone");
    assertThat(
            refused("CREATE MATERIALIZED TABLE t WITH ('refresh.on-create' = 'true') AS SELECT 1"))
        .hasMessageContaining("applies to FULL refreshes");
  }

  @Test
  void shouldRefuseEachClauseThatWouldDoNothingAtItsPosition() {
    SqlException range =
        refused(
            "CREATE MATERIALIZED TABLE t\nDISTRIBUTED BY RANGE(a) INTO 4 BUCKETS\nAS SELECT 1 AS a");
    assertThat(range).isNotNull();
    assertThat(range.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(range.line()).isEqualTo(2);
    assertThat(range.column()).isEqualTo(1);

    SqlException proto =
        refused(
            "CREATE MATERIALIZED TABLE t WITH (\n  'value.format' = 'proto-registry') AS SELECT 1");
    assertThat(proto.code()).isEqualTo(ErrorCode.UNSUPPORTED_OPTION);
    assertThat(proto.getMessage()).contains("Protobuf");
    assertThat(proto.line()).isEqualTo(2);
    assertThat(proto.column()).isEqualTo(3);

    assertThat(
            refused(
                    "CREATE MATERIALIZED TABLE t WITH ('kafka.cleanup-policy' = 'compact')"
                        + " AS SELECT 1 AS a")
                .getMessage())
        .contains("needs a key");
    SqlException avroRetract =
        refused(
            "CREATE MATERIALIZED TABLE t WITH ('changelog.mode' = 'retract',\n"
                + "  'value.format' = 'avro-registry') AS SELECT 1 AS a");
    assertThat(avroRetract.code()).isEqualTo(ErrorCode.UNSUPPORTED_OPTION);
    assertThat(avroRetract.getMessage()).contains("Debezium JSON envelopes");
    assertThat(avroRetract.line()).isEqualTo(2);
    assertThat(refused("CREATE MATERIALIZED TABLE t PARTITIONED BY (a) AS SELECT 1 AS a").code())
        .isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(
            refused(
                    "CREATE MATERIALIZED TABLE t (a INT, k STRING METADATA FROM 'timestamp')"
                        + " AS SELECT 1 AS a")
                .getMessage())
        .contains("must be VIRTUAL");
    assertThat(refused("ALTER MATERIALIZED TABLE t SET ('scan.startup.mode' = 'latest-offset')"))
        .hasMessageContaining("START_MODE");
    assertThat(refused("ALTER MATERIALIZED TABLE t RESUME WITH ('a' = 'b')").code())
        .isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(
            refused(
                    "CREATE MATERIALIZED TABLE t (a INT, b INT, PRIMARY KEY (a) NOT ENFORCED)"
                        + " DISTRIBUTED BY (b) AS SELECT 1 AS a, 2 AS b")
                .getMessage())
        .contains("keyed and partitioned by its primary key");
  }

  @Test
  void shouldPassWhatCanRun() {
    assertThatCode(
            () ->
                Parser.parseScript(
                        "CREATE MATERIALIZED TABLE t (a INT, ts TIMESTAMP_LTZ(3) METADATA FROM"
                            + " 'timestamp' VIRTUAL, PRIMARY KEY (a) NOT ENFORCED) DISTRIBUTED BY"
                            + " HASH(a) INTO 3 BUCKETS WITH ('value.format' = 'avro-registry',"
                            + " 'kafka.retention.time' = '7 d') AS SELECT 1 AS a;"
                            + " ALTER MATERIALIZED TABLE t SET ('kafka.retention.time' = '1 d')")
                    .forEach(Parser.Parsed::requireSupported))
        .doesNotThrowAnyException();
  }
}
