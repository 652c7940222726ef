package dev.tributary.sql;

import static dev.tributary.sql.ParserTest.assertRoundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.system.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Forms other tools' parsers accept (Flink's ALTER TABLE lists, Databricks' flows and strings),
 * each parsed as its authors mean it or refused at its clause as they refuse it; and the forms
 * Flink refuses, refused here too.
 */
class PeerGrammarTest {

  private static Statement.AlterAction action(String sql) {
    return ((Statement.AlterMaterializedTable) Parser.parse("ALTER MATERIALIZED TABLE t " + sql))
        .action();
  }

  private static SqlException refused(String sql) {
    SqlException e = catchThrowableOfType(SqlException.class, () -> Parser.parseScript(sql));
    assertThat(e).as("expected a refusal of: " + sql).isNotNull();
    return e;
  }

  private static MaterializedTableDefinition table(String columns) {
    return ((Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t (" + columns + ") AS SELECT * FROM s"))
        .definition();
  }

  @Test
  void shouldTakeAKeyAWatermarkAndCommentsAmongTheColumnsOfAnAdd() {
    Statement.AlterAction add =
        action(
            "ADD (\n"
                + "  id BIGINT, -- the key\n"
                + "  -- a line of its own\n"
                + "  ts TIMESTAMP(3) AFTER id,\n"
                + "  CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED, -- after an entry\n"
                + "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
                + ")");

    assertThat(add).isInstanceOf(Statement.AddColumns.class);
    Statement.AddColumns columns = (Statement.AddColumns) add;
    assertThat(columns.columns()).extracting(c -> c.column().name()).containsExactly("id", "ts");
    assertThat(columns.primaryKey()).isEqualTo(new TableSchema.PrimaryKey("pk", List.of("id")));
    assertThat(columns.watermark())
        .isEqualTo(new TableSchema.Watermark("ts", "ts - INTERVAL '5' SECOND"));
    assertRoundTrip(Parser.parse("ALTER MATERIALIZED TABLE t " + add.sql()));

    MaterializedTableDefinition applied = add.applyTo(table("name STRING"));
    assertThat(applied.schema().columns())
        .extracting(Column::name)
        .containsExactly("name", "id", "ts");
    assertThat(applied.schema().primaryKey().columns()).containsExactly("id");
    assertThat(applied.schema().watermark().column()).isEqualTo("ts");
  }

  @Test
  void shouldChangeTheKeyAndWatermarkWithTheColumnsOfAModify() {
    MaterializedTableDefinition before =
        table("id INT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts");
    Statement.AlterAction modify =
        action(
            "MODIFY (id BIGINT, v STRING, PRIMARY KEY (id, v) NOT ENFORCED,"
                + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)");
    assertRoundTrip(Parser.parse("ALTER MATERIALIZED TABLE t " + modify.sql()));

    Statement.AlterAction onlyTypes = action("MODIFY (id BIGINT, PRIMARY KEY (id) NOT ENFORCED)");
    MaterializedTableDefinition after = onlyTypes.applyTo(before);
    assertThat(after.schema().column("id").type()).isEqualTo("BIGINT");
    assertThat(after.schema().watermark().expression()).isEqualTo("ts");

    // As in Flink: ADD needs the key (or watermark) absent, MODIFY present.
    assertThat(
            catchThrowableOfType(
                IllegalArgumentException.class,
                () -> action("ADD (x INT, PRIMARY KEY (x) NOT ENFORCED)").applyTo(before)))
        .hasMessageContaining("already has a primary key");
    assertThat(
            catchThrowableOfType(
                IllegalArgumentException.class,
                () -> action("ADD (x INT, WATERMARK FOR ts AS ts)").applyTo(before)))
        .hasMessageContaining("already has a watermark");
    assertThat(
            catchThrowableOfType(
                IllegalArgumentException.class,
                () ->
                    action("MODIFY (WATERMARK FOR ts AS ts, name STRING)")
                        .applyTo(table("name STRING, ts TIMESTAMP(3)"))))
        .hasMessageContaining("no watermark to modify");
  }

  @Test
  void shouldReadAListOfOnlyAKeyOrOnlyAWatermarkAsTheSingleActions() {
    assertThat(action("ADD (PRIMARY KEY (a) NOT ENFORCED)"))
        .isEqualTo(action("ADD PRIMARY KEY (a) NOT ENFORCED"));
    assertThat(action("MODIFY (CONSTRAINT k PRIMARY KEY (a) NOT ENFORCED)"))
        .isEqualTo(action("MODIFY CONSTRAINT k PRIMARY KEY (a) NOT ENFORCED"));
    assertThat(action("MODIFY (WATERMARK FOR ts AS ts)"))
        .isEqualTo(action("MODIFY WATERMARK FOR ts AS ts"));
    assertThat(action("ADD (a INT PRIMARY KEY NOT ENFORCED FIRST)"))
        .isInstanceOfSatisfying(
            Statement.AddColumns.class,
            add -> {
              assertThat(add.primaryKey().columns()).containsExactly("a");
              assertThat(add.columns().get(0).position().first()).isTrue();
            });
  }

  @Test
  void shouldRefuseWhatFlinkRefusesAtTheEntry() {
    SqlException twoWatermarks =
        refused(
            "ALTER MATERIALIZED TABLE t ADD (ts TIMESTAMP(3), WATERMARK FOR ts AS ts,\n"
                + "  WATERMARK FOR ts AS ts)");
    assertThat(twoWatermarks.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
    assertThat(twoWatermarks.line()).isEqualTo(2);
    assertThat(twoWatermarks.column()).isEqualTo(3);

    SqlException unique = refused("ALTER MATERIALIZED TABLE t ADD (a INT, UNIQUE (a))");
    assertThat(unique.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(unique.column()).isEqualTo(40);
    assertThat(unique.getMessage()).contains("UNIQUE");
    assertThat(
            refused("CREATE MATERIALIZED TABLE t (a INT, CONSTRAINT u UNIQUE (a)) AS SELECT 1")
                .code())
        .isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);

    // Flink's parser takes a key without NOT ENFORCED; its validation refuses it.
    for (String sql :
        List.of(
            "ALTER MATERIALIZED TABLE t ADD (a INT, PRIMARY KEY (a))",
            "ALTER MATERIALIZED TABLE t ADD PRIMARY KEY (a)",
            "ALTER MATERIALIZED TABLE t MODIFY PRIMARY KEY (a) ENFORCED",
            "CREATE MATERIALIZED TABLE t (a INT, PRIMARY KEY (a)) AS SELECT 1 AS a",
            "CREATE MATERIALIZED TABLE t (a INT PRIMARY KEY) AS SELECT 1 AS a")) {
      SqlException e = refused(sql);
      assertThat(e.code()).as(sql).isEqualTo(ErrorCode.INVALID_DEFINITION);
      assertThat(e.getMessage()).as(sql).contains("NOT ENFORCED");
    }

    SqlException nested = refused("ALTER MATERIALIZED TABLE t ADD (e.f3 STRING)");
    assertThat(nested.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(nested.column()).isEqualTo(33);
    assertThat(nested.getMessage()).contains("e.f3");
    SqlException after = refused("ALTER MATERIALIZED TABLE t MODIFY (x STRING AFTER e.f2)");
    assertThat(after.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(after.getMessage()).contains("e.f2");

    for (String sql :
        List.of(
            "ALTER MATERIALIZED TABLE t SET FRESHNESS = INTERVAL 1 DAY",
            "CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL 3 MINUTE AS SELECT 1",
            "CREATE MATERIALIZED TABLE t START_MODE = FROM_NOW(INTERVAL 1 HOUR) AS SELECT 1")) {
      SqlException e = refused(sql);
      assertThat(e.code()).as(sql).isEqualTo(ErrorCode.SQL_SYNTAX_ERROR);
      assertThat(e.getMessage()).as(sql).contains("quoted");
    }
  }

  @Test
  void shouldRefuseAnEntryThatIsNoColumnRatherThanReadItAsAStrangeType() {
    SqlException e = refused("ALTER MATERIALIZED TABLE t ADD (a INT, b (c))");
    assertThat(e.code()).isEqualTo(ErrorCode.SQL_SYNTAX_ERROR);
    assertThat(e.column()).isEqualTo(42);
    assertThat(e.getMessage()).contains("data type for column 'b'");
    assertThat(
            table(
                    "a INT, b ROW<x INT, y ARRAY<STRING>>, c TIMESTAMP_LTZ(3),"
                        + " d MAP<STRING, DECIMAL(10, 2)>, e TIMESTAMP(3) WITH LOCAL TIME ZONE,"
                        + " f ROW(g INT 'doc'), h INT ARRAY")
                .schema()
                .columns())
        .hasSize(7);
  }

  @Test
  void shouldTakeTheTimestampLiteralsFlinkWritesInStartMode() {
    for (String literal :
        List.of(
            "'2026-01-01 00:00:00'",
            "TIMESTAMP '2026-01-01 00:00:00'",
            "TIMESTAMP WITHOUT TIME ZONE '2026-01-01 00:00:00'",
            "TIMESTAMP WITH LOCAL TIME ZONE '2026-01-01 00:00:00'",
            "TIMESTAMP_LTZ '2026-01-01 00:00:00'")) {
      Statement.CreateMaterializedTable s =
          ParserTest.create(
              "CREATE MATERIALIZED TABLE t START_MODE = RESUME_OR_FROM_TIMESTAMP("
                  + literal
                  + ") AS SELECT 1 AS a");
      assertThat(s.definition().startMode().timestamp())
          .as(literal)
          .isEqualTo("'2026-01-01 00:00:00'");
      assertRoundTrip(s);
    }
    assertThat(
            refused(
                    "CREATE MATERIALIZED TABLE t START_MODE = FROM_TIMESTAMP(TIMESTAMP WITH TIME"
                        + " ZONE '2026-01-01') AS SELECT 1")
                .code())
        .isEqualTo(ErrorCode.SQL_SYNTAX_ERROR);
  }

  @Test
  void shouldTakeDatabricksStringsAndTablesNamedOnce() {
    Statement.CreateMaterializedTable table =
        ParserTest.create(
            "CREATE MATERIALIZED TABLE t COMMENT \"it's \"\"quoted\"\"\" AS SELECT 1");
    assertThat(table.definition().comment()).isEqualTo("it's \"quoted\"");
    assertRoundTrip(table);

    Statement.CreateFlow named =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f COMMENT \"backfill\" AS INSERT INTO once BY NAME SELECT * FROM s");
    assertThat(named.target().name()).isEqualTo("once");
    assertThat(named.once()).isFalse();
    assertThat(named.comment()).isEqualTo("backfill");
    assertRoundTrip(named);

    Statement.CreateFlow both =
        (Statement.CreateFlow) Parser.parse("CREATE FLOW f AS INSERT INTO ONCE once SELECT 1");
    assertThat(both.once()).isTrue();
    assertThat(both.target().name()).isEqualTo("once");
    assertRoundTrip(both);
    Statement.CreateFlow plain =
        (Statement.CreateFlow) Parser.parse("CREATE FLOW f AS INSERT INTO once\nSELECT 1");
    assertThat(plain.once()).isFalse();
  }

  @Test
  void shouldReadAutoCdcOnceAsOneBoundedRun() {
    Statement.CreateFlow cdc =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW backfill AS AUTO CDC ONCE INTO people FROM STREAM(changes)"
                    + " KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (op)");
    assertThat(cdc.once()).isTrue();
    assertThat(cdc.cdc().keys()).containsExactly("id");
    assertThat(Printer.print(cdc)).contains("AUTO CDC ONCE INTO");
    assertRoundTrip(cdc);
    assertThat(
            ((Statement.CreateFlow)
                    Parser.parse(
                        "CREATE FLOW f AS AUTO CDC INTO once FROM s KEYS (id) SEQUENCE BY seq"))
                .target()
                .name())
        .isEqualTo("once");
  }

  @Test
  void shouldParseIgnoreNullUpdatesWithScdType1And2() {
    Statement.CreateFlow cdc =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f AS AUTO CDC INTO people FROM STREAM(changes) KEYS (id)"
                    + " IGNORE NULL UPDATES APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq"
                    + " COLUMNS * EXCEPT (op) STORED AS SCD TYPE 1");
    assertThat(cdc.cdc().ignoreNullUpdates()).isTrue();
    assertThat(cdc.cdc().deleteWhen()).isEqualTo("op = 'DELETE'");
    assertThat(Printer.print(cdc)).contains("IGNORE NULL UPDATES");
    assertRoundTrip(cdc);
    assertThat(
            ((Statement.CreateFlow)
                    Parser.parse(
                        "CREATE FLOW f AS AUTO CDC INTO p FROM s KEYS (id) SEQUENCE BY seq"))
                .cdc()
                .ignoreNullUpdates())
        .isFalse();
    Statement.CreateFlow history =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f AS AUTO CDC INTO p FROM s KEYS (id)\n  IGNORE NULL UPDATES"
                    + " SEQUENCE BY seq STORED AS SCD TYPE 2 TRACK HISTORY ON (name)");
    assertThat(history.cdc().ignoreNullUpdates()).isTrue();
    assertThat(history.cdc().history()).isTrue();
    assertRoundTrip(history);
  }

  @Test
  void shouldParseSuspendAndResumeOfOneFlow() {
    Statement suspend = Parser.parse("ALTER FLOW db.backfill SUSPEND");
    assertThat(suspend)
        .isEqualTo(new Statement.AlterFlow(new ObjectName(null, "db", "backfill"), true));
    assertThat(suspend.kind()).isEqualTo("ALTER_FLOW_SUSPEND");
    assertRoundTrip(suspend);
    assertRoundTrip(Parser.parse("alter flow f resume"));
    SqlException e = refused("ALTER FLOW f STOP");
    assertThat(e.code()).isEqualTo(ErrorCode.SQL_SYNTAX_ERROR);
    assertThat(e.getMessage()).isEqualTo("Expected SUSPEND or RESUME but found 'STOP'");
  }

  @Test
  void shouldParseAMoveOfAPipelineTablesFlowsAndRefuseOtherPropertiesAtTheirKey() {
    Statement move =
        Parser.parse("ALTER STREAMING TABLE db.sales SET TBLPROPERTIES ('compute-pool' = 'blue')");
    assertThat(move)
        .isEqualTo(new Statement.AlterPipelineTable(new ObjectName(null, "db", "sales"), "blue"));
    assertThat(move.kind()).isEqualTo("ALTER_PIPELINE_TABLE");
    assertRoundTrip(move);
    assertThat(Parser.parse("alter table sales set tblproperties ('compute-pool' = 'blue')"))
        .isEqualTo(new Statement.AlterPipelineTable(new ObjectName(null, null, "sales"), "blue"));

    SqlException other =
        refused(
            "ALTER TABLE sales SET TBLPROPERTIES (\n  'compute-pool' = 'blue',"
                + " 'value.format' = 'avro')");
    assertThat(other.code()).isEqualTo(ErrorCode.UNSUPPORTED_OPTION);
    assertThat(other.getMessage()).contains("'value.format' is fixed", "'compute-pool'");
    assertThat(other.line()).isEqualTo(2);
    assertThat(other.column()).isEqualTo(28);
    assertThat(refused("ALTER TABLE sales SET TBLPROPERTIES ()").code())
        .isEqualTo(ErrorCode.INVALID_DEFINITION);
    assertThat(refused("ALTER TABLE sales SUSPEND").getMessage()).startsWith("Expected SET");
    assertThat(refused("ALTER TABLE sales SET ('compute-pool' = 'blue')").getMessage())
        .startsWith("Expected TBLPROPERTIES");
  }

  @Test
  void shouldRefuseReplaceFlowsAtTheirClause() {
    SqlException using =
        refused(
            "CREATE FLOW f AS INSERT INTO t BY NAME\n"
                + "REPLACE USING (region_id) SEQUENCE BY seq\n"
                + "SELECT * FROM STREAM(events)");
    assertThat(using.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(using.line()).isEqualTo(2);
    assertThat(using.column()).isEqualTo(1);
    assertThat(using.getMessage()).startsWith("REPLACE USING is not supported");

    SqlException where =
        refused("CREATE FLOW f AS INSERT INTO t BY NAME REPLACE WHERE day = '1' SELECT 1");
    assertThat(where.code()).isEqualTo(ErrorCode.UNSUPPORTED_CLAUSE);
    assertThat(where.getMessage()).startsWith("REPLACE WHERE is not supported");
  }
}
