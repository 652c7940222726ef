package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.Clauses.StartMode;
import dev.tributary.sql.Statement.CreateMaterializedTable;
import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The grammar clause by clause. */
class ParserTest {

  static CreateMaterializedTable create(String sql) {
    return (CreateMaterializedTable) Parser.parse(sql);
  }

  static void assertRoundTrip(Statement statement) {
    assertThat(Parser.parse(Printer.print(statement))).isEqualTo(statement);
  }

  @Test
  void shouldParseEveryColumnKindWatermarkKeyAndExpectation() {
    CreateMaterializedTable t =
        create(
            """
            create or alter materialized table if not exists cat.db.`my-table_1` (
              id BIGINT NOT NULL COMMENT 'the id',
              amount DECIMAL(10,   2),
              tags ARRAY<ROW<k STRING, v INT NOT NULL>>,
              ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
              part INT METADATA VIRTUAL,
              total AS amount * 2 COMMENT 'doubled',
              WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
              CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED,
              CONSTRAINT positive EXPECT (amount > 0) ON VIOLATION FAIL UPDATE
            ) AS SELECT 1
            """);

    assertThat(t.orAlter()).isTrue();
    assertThat(t.ifNotExists()).isTrue();
    assertThat(t.name()).isEqualTo(new ObjectName("cat", "db", "my-table_1"));
    TableSchema s = t.definition().schema();
    assertThat(s.columns())
        .containsExactly(
            Column.physical("id", "BIGINT", true, "the id"),
            Column.physical("amount", "DECIMAL(10, 2)", false, null),
            Column.physical("tags", "ARRAY<ROW<k STRING, v INT NOT NULL>>", false, null),
            Column.metadata("ts", "TIMESTAMP_LTZ(3)", "timestamp", true, null),
            Column.metadata("part", "INT", null, true, null),
            Column.computed("total", "amount * 2", "doubled"));
    assertThat(s.watermark())
        .isEqualTo(new TableSchema.Watermark("ts", "ts - INTERVAL '5' SECOND"));
    assertThat(s.primaryKey()).isEqualTo(new TableSchema.PrimaryKey("pk", List.of("id")));
    assertThat(s.expectations())
        .containsExactly(
            new TableSchema.Expectation(
                "positive", "amount > 0", TableSchema.OnViolation.FAIL_UPDATE));
    assertRoundTrip(t);
  }

  @Test
  void shouldAcceptClausesInAnyOrder() {
    CreateMaterializedTable a =
        create(
            "CREATE MATERIALIZED TABLE t START_MODE = FROM_NOW(INTERVAL '2' HOURS) WITH ('changelog.mode' = 'upsert')"
                + " REFRESH_MODE = FULL FRESHNESS = INTERVAL '1' DAY DISTRIBUTED BY RANGE(a) INTO 4 BUCKETS"
                + " PARTITIONED BY (d) COMMENT 'c' AS SELECT a, d FROM s");
    CreateMaterializedTable b =
        create(
            "CREATE MATERIALIZED TABLE t COMMENT 'c' PARTITIONED BY (d) DISTRIBUTED BY RANGE(a) INTO 4 BUCKETS"
                + " WITH ('changelog.mode' = 'upsert') FRESHNESS = INTERVAL '1' DAY REFRESH MODE = FULL"
                + " START_MODE = FROM_NOW(INTERVAL '2' HOUR) AS SELECT a, d FROM s");

    assertThat(a).isEqualTo(b);
    MaterializedTableDefinition d = a.definition();
    assertThat(d.startMode())
        .isEqualTo(
            new StartMode(
                StartMode.Kind.FROM_NOW, new Clauses.Interval(2, Clauses.TimeUnit.HOUR), null));
    assertThat(d.distribution())
        .isEqualTo(new Clauses.Distribution(Clauses.Distribution.Algorithm.RANGE, List.of("a"), 4));
    assertThat(d.refreshMode()).isEqualTo(Clauses.RefreshMode.FULL);
    assertRoundTrip(a);
  }

  @Test
  void shouldParseAllStartModes() {
    for (String mode :
        List.of(
            "FROM_BEGINNING",
            "FROM_NOW",
            "FROM_NOW(INTERVAL '10' MINUTE)",
            "FROM_TIMESTAMP('2026-01-01 00:00:00')",
            "FROM_TIMESTAMP(1767225600000)",
            "RESUME_OR_FROM_BEGINNING",
            "RESUME_OR_FROM_NOW",
            "RESUME_OR_FROM_NOW(INTERVAL '1' DAY)",
            "RESUME_OR_FROM_TIMESTAMP('2026-01-01 00:00:00')")) {
      CreateMaterializedTable t =
          create("CREATE MATERIALIZED TABLE t START_MODE = " + mode + " AS SELECT 1");
      assertThat(Printer.startMode(t.definition().startMode())).isEqualTo(mode);
      assertRoundTrip(t);
    }
  }

  @Test
  void shouldKeepTheQueryVerbatimUpToTheSemicolonOutsideStringsCommentsAndParentheses() {
    String query =
        "SELECT ';' AS semi, /* ; */ (SELECT 1) AS one -- ; trailing\n  FROM `a;b` WHERE x = \"y;\"";
    List<Parser.Parsed> script =
        Parser.parseScript(
            "CREATE MATERIALIZED TABLE t AS " + query + "; DROP MATERIALIZED TABLE t");

    assertThat(script).hasSize(2);
    assertThat(((CreateMaterializedTable) script.get(0).statement()).definition().query())
        .isEqualTo(query);
    assertThat(script.get(1).statement())
        .isEqualTo(new Statement.DropMaterializedTable(ObjectName.of("t"), false));
  }

  @Test
  void shouldParseEveryAlterAction() {
    Map<String, String> kinds =
        Map.ofEntries(
            Map.entry(
                "ADD (k TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL)",
                "ALTER_MATERIALIZED_TABLE_ADD_COLUMNS"),
            Map.entry("ADD (p AS price * 1.21)", "ALTER_MATERIALIZED_TABLE_ADD_COLUMNS"),
            Map.entry("ADD c STRING METADATA VIRTUAL", "ALTER_MATERIALIZED_TABLE_ADD_COLUMNS"),
            Map.entry(
                "ADD (c1 INT FIRST, c2 AS c1 + 1 AFTER x)", "ALTER_MATERIALIZED_TABLE_ADD_COLUMNS"),
            Map.entry(
                "ADD CONSTRAINT pk PRIMARY KEY (a) NOT ENFORCED",
                "ALTER_MATERIALIZED_TABLE_SET_PRIMARY_KEY"),
            Map.entry("MODIFY c BIGINT", "ALTER_MATERIALIZED_TABLE_MODIFY_COLUMNS"),
            Map.entry(
                "MODIFY (c BIGINT NOT NULL, d STRING FIRST)",
                "ALTER_MATERIALIZED_TABLE_MODIFY_COLUMNS"),
            Map.entry("DROP c", "ALTER_MATERIALIZED_TABLE_DROP_COLUMNS"),
            Map.entry("DROP (c1, c2)", "ALTER_MATERIALIZED_TABLE_DROP_COLUMNS"),
            Map.entry("DROP PRIMARY KEY", "ALTER_MATERIALIZED_TABLE_DROP_PRIMARY_KEY"),
            Map.entry("DROP CONSTRAINT pk", "ALTER_MATERIALIZED_TABLE_DROP_PRIMARY_KEY"),
            Map.entry(
                "ADD DISTRIBUTION BY HASH(a) INTO 6 BUCKETS",
                "ALTER_MATERIALIZED_TABLE_SET_DISTRIBUTION"),
            Map.entry(
                "MODIFY DISTRIBUTION INTO 3 BUCKETS", "ALTER_MATERIALIZED_TABLE_SET_DISTRIBUTION"),
            Map.entry("DROP DISTRIBUTION", "ALTER_MATERIALIZED_TABLE_SET_DISTRIBUTION"),
            Map.entry(
                "MODIFY WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
                "ALTER_MATERIALIZED_TABLE_MODIFY_WATERMARK"),
            Map.entry("DROP WATERMARK", "ALTER_MATERIALIZED_TABLE_DROP_WATERMARK"),
            Map.entry(
                "SET ('kafka.retention.time' = '30 d', 'value.format' = 'avro-registry')",
                "ALTER_MATERIALIZED_TABLE_SET_OPTIONS"),
            Map.entry("RESET ('kafka.retention.time')", "ALTER_MATERIALIZED_TABLE_RESET_OPTIONS"),
            Map.entry("SUSPEND", "ALTER_MATERIALIZED_TABLE_SUSPEND"),
            Map.entry("RESUME WITH ('parallelism' = '2')", "ALTER_MATERIALIZED_TABLE_RESUME"),
            Map.entry(
                "REFRESH PARTITION (ds = '2026-05-19', hr = 3)",
                "ALTER_MATERIALIZED_TABLE_REFRESH"),
            Map.entry(
                "SET FRESHNESS = INTERVAL '1' MINUTE", "ALTER_MATERIALIZED_TABLE_SET_FRESHNESS"),
            Map.entry("SET REFRESH MODE = CONTINUOUS", "ALTER_MATERIALIZED_TABLE_SET_REFRESH_MODE"),
            Map.entry("REFRESH MODE = FULL AS SELECT 2", "ALTER_MATERIALIZED_TABLE_EVOLVE"),
            Map.entry(
                "(a INT) WITH ('value.format' = 'raw') AS SELECT 2 AS a",
                "ALTER_MATERIALIZED_TABLE_EVOLVE"));
    kinds.forEach(
        (action, kind) -> {
          Statement s = Parser.parse("ALTER MATERIALIZED TABLE db.t " + action);
          assertThat(s.kind()).as(action).isEqualTo(kind);
          assertRoundTrip(s);
        });
  }

  @Test
  void shouldApplyFlinkAlterFormsToTheDeclaredSchema() {
    MaterializedTableDefinition d =
        ((Statement.CreateMaterializedTable)
                Parser.parse(
                    "CREATE MATERIALIZED TABLE t (x INT, y STRING, PRIMARY KEY (x) NOT ENFORCED)"
                        + " AS SELECT x, y FROM s"))
            .definition();
    MaterializedTableDefinition added =
        action("ADD (c1 INT FIRST, c2 AS c1 + 1 AFTER x)").applyTo(d);
    assertThat(added.schema().columns().stream().map(Column::name))
        .containsExactly("c1", "x", "c2", "y");
    assertThat(action("MODIFY y BIGINT").applyTo(d).schema().column("y").type())
        .isEqualTo("BIGINT");
    assertThat(action("DROP y").applyTo(d).schema().columns().stream().map(Column::name))
        .containsExactly("x");
    assertThat(action("DROP PRIMARY KEY").applyTo(d).schema().primaryKey()).isNull();
    assertThatThrownBy(() -> action("DROP x").applyTo(d))
        .hasMessageContaining("used by the primary key");
    assertThatThrownBy(() -> action("ADD (x INT)").applyTo(d))
        .hasMessageContaining("already exists");
  }

  @Test
  void shouldKeepEveryClauseThatAnAlterAsDoesNotRepeat() {
    MaterializedTableDefinition d =
        ((Statement.CreateMaterializedTable)
                Parser.parse(
                    "CREATE MATERIALIZED TABLE t (x INT, ts TIMESTAMP(3), v AS x * 2, WATERMARK FOR ts AS ts)"
                        + " WITH ('value.format' = 'avro-registry') FRESHNESS = INTERVAL '5' SECOND"
                        + " AS SELECT x FROM s"))
            .definition();
    MaterializedTableDefinition evolved = action("AS SELECT x FROM s WHERE x > 1").applyTo(d);
    assertThat(evolved.query()).isEqualTo("SELECT x FROM s WHERE x > 1");
    assertThat(evolved.freshness()).isEqualTo(d.freshness());
    assertThat(evolved.options()).containsEntry("value.format", "avro-registry");
    assertThat(evolved.schema().columns()).extracting(Column::name).containsExactly("v");
    assertThat(evolved.schema().watermark()).isEqualTo(d.schema().watermark());
  }

  @Test
  void shouldParseAColumnListOfNamesOnly() {
    Statement.CreateMaterializedTable s =
        (Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t (b, a) AS SELECT 1 AS a, 2 AS b");
    assertThat(s.definition().schema().columns())
        .extracting(Column::name, Column::type)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("b", null),
            org.assertj.core.groups.Tuple.tuple("a", null));
    assertThat(TableSchema.namesOnly(s.definition().schema())).isTrue();
    assertRoundTrip(s);
  }

  @Test
  void shouldParseExplainAndFlinkLiteralForms() {
    Statement explain =
        Parser.parse("EXPLAIN CREATE OR ALTER MATERIALIZED TABLE t AS SELECT 1 AS a");
    assertThat(explain.kind()).isEqualTo("EXPLAIN");
    assertRoundTrip(explain);
    assertThat(Parser.parse("EXPLAIN ALTER MATERIALIZED TABLE t AS SELECT 2 AS a").kind())
        .isEqualTo("EXPLAIN");
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable)
            Parser.parse(
                "CREATE MATERIALIZED TABLE t START_MODE = FROM_TIMESTAMP(TIMESTAMP '2026-01-01"
                    + " 00:00:00') AS SELECT 1 AS a");
    assertThat(create.definition().startMode().timestamp()).isEqualTo("'2026-01-01 00:00:00'");
  }

  private static Statement.AlterAction action(String sql) {
    return ((Statement.AlterMaterializedTable) Parser.parse("ALTER MATERIALIZED TABLE t " + sql))
        .action();
  }

  @Test
  void shouldParseShowDescribeSelectUseAndDrop() {
    assertThat(Parser.parse("show materialized tables in cat.db like 'order%'"))
        .isEqualTo(
            new Statement.ShowMaterializedTables(new ObjectName(null, "cat", "db"), "order%"));
    assertThat(Parser.parse("SHOW CREATE MATERIALIZED TABLE t"))
        .isEqualTo(new Statement.ShowCreateMaterializedTable(ObjectName.of("t")));
    assertThat(Parser.parse("DESC db.t"))
        .isEqualTo(new Statement.Describe(new ObjectName(null, "db", "t")));
    assertThat(Parser.parse("USE CATALOG examples")).isEqualTo(new Statement.Use("examples", null));
    assertThat(Parser.parse("USE examples.marketplace"))
        .isEqualTo(new Statement.Use("examples", "marketplace"));
    assertThat(Parser.parse("DROP TABLE IF EXISTS t"))
        .isEqualTo(new Statement.DropTable(ObjectName.of("t"), true));
    Statement select =
        Parser.parse(
            "SELECT table_name, status FROM information_schema.materialized_tables"
                + " WHERE refresh_mode IN ('FULL', 'CONTINUOUS') AND table_name LIKE 'o%' AND job_id IS NOT NULL LIMIT 5");
    assertThat(select)
        .isEqualTo(
            new Statement.Select(
                List.of("table_name", "status"),
                new ObjectName(null, "information_schema", "materialized_tables"),
                List.of(
                    new Statement.Predicate("refresh_mode", "IN", List.of("FULL", "CONTINUOUS")),
                    new Statement.Predicate("table_name", "LIKE", List.of("o%")),
                    new Statement.Predicate("job_id", "IS NOT NULL", List.of())),
                5));
    assertRoundTrip(select);
  }

  @Test
  void shouldParsePipelineTablesFlowsAndSourceTables() {
    Statement pipeline =
        Parser.parse(
            "CREATE TABLE t (id INT NOT NULL, CONSTRAINT c EXPECT (id > 0)) LOCATION '/x' TBLPROPERTIES ('a' = 'b')"
                + " WITH ROW FILTER f ON (id) COMMENT 'c' FLOW INSERT ONCE BY NAME SELECT id FROM s");
    Statement flow = Parser.parse("CREATE FLOW f AS INSERT ONCE INTO t BY NAME SELECT * FROM s2");
    Statement source =
        Parser.parse(
            "CREATE TABLE IF NOT EXISTS orders (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kafka', 'topic' = 'orders')");

    assertThat(pipeline.kind()).isEqualTo("CREATE_PIPELINE_TABLE");
    assertThat(((Statement.CreatePipelineTable) pipeline).flow())
        .isEqualTo(new Statement.Flow(null, true, true, "SELECT id FROM s"));
    assertThat(flow)
        .isEqualTo(
            new Statement.CreateFlow(
                ObjectName.of("f"),
                null,
                ObjectName.of("t"),
                null,
                true,
                true,
                "SELECT * FROM s2"));
    assertThat(((Statement.CreateSourceTable) source).options())
        .containsEntry("connector", "kafka");
    assertRoundTrip(pipeline);
    assertRoundTrip(flow);
    assertRoundTrip(source);
  }

  @Test
  void shouldParseTheFlowFormsOfDatabricksDocs() {
    Statement commented =
        Parser.parse(
            "CREATE FLOW f COMMENT 'backfill' AS INSERT INTO ONCE t SELECT * FROM STREAM(s)");
    Statement positional = Parser.parse("CREATE TABLE t FLOW INSERT SELECT a, b FROM STREAM s");
    Statement imported =
        Parser.parse(
            "CREATE TABLE t FLOW IMPORT CHECKPOINT '/ckpt/x' INSERT BY NAME SELECT * FROM s");

    assertThat(commented)
        .isEqualTo(
            new Statement.CreateFlow(
                ObjectName.of("f"),
                "backfill",
                ObjectName.of("t"),
                null,
                true,
                false,
                "SELECT * FROM s"));
    assertThat(((Statement.CreatePipelineTable) positional).flow())
        .isEqualTo(new Statement.Flow(null, false, false, "SELECT a, b FROM s"));
    assertThat(
            ((Statement.CreatePipelineTable)
                    Parser.parse(
                        "CREATE TABLE t FLOW INSERT SELECT * FROM STREAM (c.d.s) AS x JOIN"
                            + " STREAM `y` ON x.id = `y`.id WHERE x.stream = 'STREAM(s)'"))
                .flow()
                .query())
        .isEqualTo(
            "SELECT * FROM c.d.s AS x JOIN `y` ON x.id = `y`.id WHERE x.stream = 'STREAM(s)'");
    assertThat(((Statement.CreatePipelineTable) imported).flow().importCheckpoint())
        .isEqualTo("/ckpt/x");
    assertThat(Parser.parse("DROP FLOW IF EXISTS f"))
        .isEqualTo(new Statement.DropFlow(ObjectName.of("f"), true));
    assertThat(Parser.parse("SHOW FLOWS IN t"))
        .isEqualTo(new Statement.ShowFlows(ObjectName.of("t")));
    assertThat(Parser.parse("SHOW FLOWS")).isEqualTo(new Statement.ShowFlows(null));
    assertRoundTrip(commented);
    assertRoundTrip(positional);
    assertRoundTrip(imported);
    assertRoundTrip(Parser.parse("DROP FLOW f"));
  }

  @Test
  void shouldParseAutoCdcFlowsAndStreamingTables() {
    Statement cdc =
        Parser.parse(
            "CREATE FLOW f AS AUTO CDC INTO t FROM STREAM(s) KEYS (id, region)"
                + " APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq COLUMNS * EXCEPT (op, seq)"
                + " STORED AS SCD TYPE 1");
    Statement declared =
        Parser.parse("CREATE OR REFRESH STREAMING TABLE t COMMENT 'c' TBLPROPERTIES ('a' = 'b')");
    Statement streaming = Parser.parse("CREATE STREAMING TABLE t AS SELECT * FROM STREAM s");

    assertThat(((Statement.CreateFlow) cdc).cdc())
        .isEqualTo(
            new Statement.Cdc(
                ObjectName.of("s"),
                List.of("id", "region"),
                "op = 'DELETE'",
                "seq",
                List.of(),
                List.of("op", "seq")));
    assertThat(((Statement.CreatePipelineTable) declared).flow()).isNull();
    assertThat(((Statement.CreatePipelineTable) streaming).flow())
        .isEqualTo(new Statement.Flow(null, false, true, "SELECT * FROM s"));
    assertRoundTrip(cdc);
    assertRoundTrip(declared);
    assertThat(Parser.parse("REFRESH STREAMING TABLE t FULL"))
        .isEqualTo(new Statement.RefreshTable(ObjectName.of("t")));
    assertRoundTrip(Parser.parse("REFRESH TABLE c.d.t FULL"));
    assertThatThrownBy(() -> Parser.parse("REFRESH STREAMING TABLE t"))
        .hasMessageContaining("REFRESH ... FULL");
  }

  @Test
  void shouldParseScdType2AndTrackHistoryOnlyWithIt() {
    Statement.CreateFlow history =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY seq"
                    + " STORED AS SCD TYPE 2");
    assertThat(history.cdc().history()).isTrue();
    assertThat(Printer.print(history)).contains("STORED AS SCD TYPE 2");
    assertRoundTrip(history);
    assertThat(
            ((Statement.CreateFlow)
                    Parser.parse("CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY q"))
                .cdc()
                .scdType())
        .isEqualTo(1);
    Statement.CreateFlow tracked =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY seq\n"
                    + "TRACK HISTORY ON (name, city) STORED AS SCD TYPE 2");
    assertThat(tracked.cdc().trackOn()).containsExactly("name", "city");
    assertThat(tracked.cdc().tracks("name")).isTrue();
    assertThat(tracked.cdc().tracks("zip")).isFalse();
    assertThat(Printer.print(tracked))
        .endsWith("STORED AS SCD TYPE 2\nTRACK HISTORY ON (`name`, `city`)");
    assertRoundTrip(tracked);
    Statement.CreateFlow except =
        (Statement.CreateFlow)
            Parser.parse(
                "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY seq"
                    + " STORED AS SCD TYPE 2 TRACK HISTORY ON * EXCEPT (zip)");
    assertThat(except.cdc().tracks("name")).isTrue();
    assertThat(except.cdc().tracks("zip")).isFalse();
    assertRoundTrip(except);
    assertThatThrownBy(
            () ->
                Parser.parse(
                    "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY seq\n"
                        + "TRACK HISTORY ON (name)"))
        .isInstanceOfSatisfying(
            SqlException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DEFINITION);
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.column()).isEqualTo(1);
              assertThat(e.getMessage()).contains("TRACK HISTORY ON needs STORED AS SCD TYPE 2");
            });
    assertThatThrownBy(
            () ->
                Parser.parse(
                    "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (id) SEQUENCE BY seq"
                        + " STORED AS SCD TYPE 3"))
        .hasMessageContaining("Expected SCD TYPE 1 or 2");
  }

  @Test
  void shouldWriteOutEveryDefaultInTheEffectiveDefinition() {
    MaterializedTableDefinition keyed =
        Defaults.effective(
            create(
                    "CREATE MATERIALIZED TABLE t (id INT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) AS SELECT 1")
                .definition());
    MaterializedTableDefinition daily =
        Defaults.effective(
            create("CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '1' DAY AS SELECT 1")
                .definition());

    assertThat(keyed.distribution())
        .isEqualTo(new Clauses.Distribution(Clauses.Distribution.Algorithm.HASH, List.of("id"), 6));
    assertThat(keyed.options())
        .containsEntry("changelog.mode", "upsert")
        .containsEntry("kafka.cleanup-policy", "compact")
        .containsEntry("key.format", "json-registry")
        .containsEntry("value.format", "json-registry");
    assertThat(keyed.freshness()).isEqualTo(new Clauses.Interval(3, Clauses.TimeUnit.MINUTE));
    assertThat(keyed.refreshMode()).isEqualTo(Clauses.RefreshMode.CONTINUOUS);
    assertThat(keyed.startMode()).isEqualTo(StartMode.of(StartMode.Kind.RESUME_OR_FROM_BEGINNING));
    assertThat(daily.options())
        .containsEntry("changelog.mode", "append")
        .containsEntry("kafka.cleanup-policy", "delete")
        .doesNotContainKey("key.format");
    assertThat(daily.distribution()).isEqualTo(new Clauses.Distribution(null, List.of(), 6));
    assertThat(daily.refreshMode()).isEqualTo(Clauses.RefreshMode.FULL);
  }
}
