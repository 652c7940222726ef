package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/** POST /v1/statements and /v1/statements/validate against the running service and its store. */
@TributaryIT
// Statement semantics only: no reconciler, so nothing is provisioned from these definitions.
// Topics are named per catalog, so tests (each in its own catalog) never share one.
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class StatementsIT {

  @LocalServerPort int port;
  Api api;
  String catalog;

  @BeforeEach
  void isolate() {
    api = new Api(port);
    catalog = "it_" + UUID.randomUUID().toString().substring(0, 8);
  }

  Answer sql(String statement) {
    return api.sql(statement, catalog, "db");
  }

  JsonNode ok(String statement) {
    Answer answer = sql(statement);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  static List<String> column(JsonNode result, int index) {
    return result.path("rows").valueStream().map(r -> r.path(index).asString()).toList();
  }

  @Test
  void shouldStoreTheSeedExamplesRunVerbatim() throws IOException {
    String script =
        Files.readString(Path.of("src/test/resources/sql/seeds/000-00.sql"))
            + Files.readString(Path.of("src/test/resources/sql/seeds/000-01.sql"))
            + Files.readString(Path.of("src/test/resources/sql/seeds/000-02.sql"))
            + Files.readString(Path.of("src/test/resources/sql/seeds/000-03.sql"));

    JsonNode results = ok(script);

    assertThat(results.valueStream().map(r -> r.path("outcome").asString()))
        .containsOnly("CREATED");
    assertThat(results.path(0).path("resource").path("name").asString())
        .isEqualTo("high_value_orders");
    JsonNode show = ok("SHOW MATERIALIZED TABLES").path(0);
    assertThat(column(show, 0))
        .containsExactly("all_orders", "customer_orders", "high_value_orders", "orders_avro");
    JsonNode status =
        ok("SELECT table_name, status, generation FROM information_schema.materialized_tables WHERE table_name LIKE '%orders'")
            .path(0);
    assertThat(column(status, 1)).containsOnly("PENDING");
  }

  @Test
  void shouldSayWhereAScriptSpentItsTimeInServerTiming() {
    Answer created = sql("CREATE MATERIALIZED TABLE timed AS SELECT 1 AS n");
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    String timing = created.headers().getFirst("Server-Timing");
    // Parsed, run once to collect what to ask Flink, asked, run again to keep: each with its time.
    assertThat(timing)
        .as(timing)
        .matches("parse;dur=\\d+\\.\\d, .*")
        // The query is described by Flink's planner in the service (the stack's gateway runs the
        // same Flink version); the gateway answers only its version, once a minute.
        .contains("run;dur=", "reads;dur=", "flinkPlanner;dur=", "rerun;dur=")
        .endsWith(timing.substring(timing.indexOf("total;dur=")));
    Answer refused = sql("CREATE MATERIALIZED TABLE timed AS SELECT 1 AS n");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.headers().getFirst("Server-Timing")).contains("total;dur=");
    assertThat(api.get("/v1/catalogs").headers().getFirst("Server-Timing"))
        .as("reads are not buffered for the header")
        .isNull();
  }

  @Test
  void shouldRefuseASecondCreateNamingTheTableAndSkipWithIfNotExists() {
    ok("CREATE MATERIALIZED TABLE t AS SELECT 1");

    Answer again = sql("CREATE MATERIALIZED TABLE t AS SELECT 2");
    JsonNode skipped = ok("CREATE MATERIALIZED TABLE IF NOT EXISTS t AS SELECT 3").path(0);

    assertThat(again.status()).isEqualTo(409);
    assertThat(again.contentType()).isEqualTo("application/problem+json");
    assertThat(again.body().path("code").asString()).isEqualTo("ALREADY_EXISTS");
    assertThat(again.body().path("detail").asString()).contains(catalog + ".db.t already exists");
    assertThat(again.body().path("statementIndex").asInt()).isZero();
    assertThat(skipped.path("outcome").asString()).isEqualTo("SKIPPED");
  }

  @Test
  void shouldRefuseATableWhoseTopicAnotherTableOwnsNamingTheOwner() {
    ok("CREATE MATERIALIZED TABLE shared AS SELECT 1");

    Answer taken =
        api.sql(
            "CREATE MATERIALIZED TABLE mine AS SELECT 1; CREATE MATERIALIZED TABLE shared AS SELECT"
                + " 2",
            catalog,
            "other");

    assertThat(taken.status()).as(taken.text()).isEqualTo(409);
    assertThat(taken.body().path("code").asString()).isEqualTo("ALREADY_EXISTS");
    assertThat(taken.body().path("statementIndex").asInt()).isEqualTo(1);
    assertThat(taken.body().path("topic").asString()).isEqualTo(catalog + ".shared");
    assertThat(taken.body().path("owner").asString()).isEqualTo(catalog + ".db.shared");
    assertThat(taken.body().path("detail").asString())
        .contains("belongs to materialized table " + catalog + ".db.shared");
    // Nothing of the refused script is stored, and the owner keeps its definition.
    JsonNode other = api.sql("SHOW MATERIALIZED TABLES", catalog, "other").body();
    assertThat(other.path("results").path(0).path("rows").size()).isZero();
    assertThat(
            column(
                ok("SELECT table_name, generation FROM information_schema.materialized_tables")
                    .path(0),
                1))
        .containsExactly("1");
  }

  @Test
  void shouldKeepNothingOfAScriptWhenOneStatementFails() {
    Answer failed =
        sql(
            "CREATE MATERIALIZED TABLE a AS SELECT 1; CREATE MATERIALIZED TABLE b AS SELECT 2; CREATE MATERIALIZED TABLE a AS SELECT 3");
    Answer invalid =
        sql(
            "CREATE MATERIALIZED TABLE c AS SELECT 1;\nCREATE MATERIALIZED TABLE d WITH ('kafka.retention.time' = 'forever') AS SELECT 2");

    assertThat(failed.status()).isEqualTo(409);
    assertThat(failed.body().path("statementIndex").asInt()).isEqualTo(2);
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.body().path("code").asString()).isEqualTo("INVALID_OPTION_VALUE");
    assertThat(invalid.body().path("statementIndex").asInt()).isEqualTo(1);
    assertThat(invalid.body().path("line").asInt()).isEqualTo(2);
    assertThat(invalid.body().path("column").asInt()).isEqualTo(35);
    assertThat(invalid.body().path("snippet").asString())
        .endsWith("\n                                  ^");
    assertThat(ok("SHOW MATERIALIZED TABLES").path(0).path("rows").size()).isZero();
  }

  @Test
  void shouldShowTheEffectiveDefinitionAndRecordEveryVersion() {
    ok(
        "CREATE MATERIALIZED TABLE totals (customer_id INT, n BIGINT, PRIMARY KEY (customer_id) NOT ENFORCED)"
            + " AS SELECT customer_id, COUNT(*) AS n FROM examples.marketplace.orders GROUP BY customer_id");
    ok("ALTER MATERIALIZED TABLE totals SET ('kafka.retention.time' = '30 d')");

    String ddl =
        ok("SHOW CREATE MATERIALIZED TABLE totals").path(0).path("rows").path(0).path(0).asString();
    JsonNode status =
        ok("SELECT generation, refresh_mode, freshness FROM information_schema.materialized_tables WHERE table_name = 'totals'")
            .path(0);

    assertThat(ddl)
        .startsWith("CREATE MATERIALIZED TABLE `" + catalog + "`.`db`.`totals` (")
        .contains("DISTRIBUTED BY HASH(`customer_id`) INTO 6 BUCKETS")
        .contains(
            "'changelog.mode' = 'upsert'",
            "'kafka.cleanup-policy' = 'compact'",
            "'kafka.retention.time' = '30 d'")
        .contains(
            "FRESHNESS = INTERVAL '3' MINUTE",
            "REFRESH_MODE = CONTINUOUS",
            "START_MODE = RESUME_OR_FROM_BEGINNING");
    assertThat(status.path("rows").path(0).path(0).asInt()).isEqualTo(2);
    assertThat(status.path("rows").path(0).path(1).asString()).isEqualTo("CONTINUOUS");
    // The printed form is itself a valid statement.
    Answer lint = api.post("/v1/statements/validate", Map.of("statement", ddl));
    assertThat(lint.status()).as(lint.text()).isEqualTo(200);
  }

  @Test
  void shouldTreatARepeatedSuspendOrResumeAsANoOp() {
    ok("CREATE MATERIALIZED TABLE s AS SELECT 1");

    List<String> outcomes =
        ok("ALTER MATERIALIZED TABLE s SUSPEND; ALTER MATERIALIZED TABLE s SUSPEND; ALTER MATERIALIZED TABLE s RESUME; ALTER MATERIALIZED TABLE s RESUME")
            .valueStream()
            .map(r -> r.path("outcome").asString())
            .toList();

    assertThat(outcomes).containsExactly("REQUESTED", "UNCHANGED", "REQUESTED", "UNCHANGED");
  }

  @Test
  void shouldDescribeShowLineageAndAnswerInformationSchema() {
    ok(
        "CREATE MATERIALIZED TABLE customer_orders (order_id STRING, customer_name STRING, price DOUBLE) AS"
            + " SELECT o.order_id, c.name AS customer_name, o.price FROM examples.marketplace.orders o"
            + " JOIN examples.marketplace.customers c ON o.customer_id = c.customer_id;"
            + " CREATE MATERIALIZED TABLE big_spenders AS SELECT * FROM customer_orders WHERE price > 90");

    JsonNode describe = ok("DESCRIBE customer_orders").path(0);
    JsonNode lineage = ok("SHOW MATERIALIZED TABLE customer_orders").path(0);
    Answer inferred = sql("DESCRIBE big_spenders");
    JsonNode source = ok("DESCRIBE examples.marketplace.orders").path(0);

    assertThat(column(describe, 0)).containsExactly("order_id", "customer_name", "price");
    assertThat(lineage.path("rows").valueStream().map(JsonNode::toString))
        .containsExactly(
            "[\"reads\",\"examples.marketplace.orders\",\"SOURCE_TABLE\"]",
            "[\"reads\",\"examples.marketplace.customers\",\"SOURCE_TABLE\"]",
            "[\"read_by\",\"" + catalog + ".db.big_spenders\",\"MATERIALIZED_TABLE\"]");
    assertThat(inferred.status()).isEqualTo(409);
    assertThat(source.path("rows").path(4).path(5).asString())
        .isEqualTo("event_time - INTERVAL '5' SECOND");
  }

  @Test
  void shouldShowTheLineageOfAQueryWithACteAndAWindowFunction() {
    ok(
        "CREATE MATERIALIZED TABLE windowed AS WITH recent AS (SELECT * FROM"
            + " examples.marketplace.orders WHERE price > 10) SELECT window_start, COUNT(*) AS n"
            + " FROM TABLE(TUMBLE(TABLE recent, DESCRIPTOR(event_time), INTERVAL '1' MINUTE))"
            + " GROUP BY window_start, window_end");

    JsonNode lineage = ok("SHOW MATERIALIZED TABLE windowed").path(0);

    // The CTE is not a table; what it reads is.
    assertThat(lineage.path("rows").valueStream().map(JsonNode::toString))
        .containsExactly("[\"reads\",\"examples.marketplace.orders\",\"SOURCE_TABLE\"]");
  }

  @Test
  void shouldKeepPipelineTablesWithTheirFlowsAndSourceTables() {
    ok(
        "CREATE TABLE clicks (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'kafka', 'topic' ="
            + " 'orders', 'properties.bootstrap.servers' = '"
            + LocalStack.get().kafkaBootstrapServers()
            + "', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');"
            + " CREATE TABLE events (CONSTRAINT positive_id EXPECT (id > 0) ON VIOLATION DROP ROW)"
            + " FLOW INSERT BY NAME SELECT id FROM clicks;"
            + " CREATE FLOW backfill AS INSERT ONCE INTO events BY NAME SELECT id FROM clicks");

    String ddl =
        ok("SHOW CREATE MATERIALIZED TABLE events").path(0).path("rows").path(0).path(0).asString();
    JsonNode tables = ok("SHOW TABLES").path(0);
    // The catalog's rows and no other's (examples has tables of its own), its flows among them.
    JsonNode schema =
        ok("SELECT table_catalog, table_name, table_type FROM information_schema.materialized_tables")
            .path(0);
    Answer dropRead = sql("DROP TABLE clicks");
    Answer secondFlow = sql("CREATE FLOW backfill AS INSERT INTO events BY NAME SELECT 1");

    assertThat(ddl)
        .contains("FLOW INSERT BY NAME")
        .contains(
            "CREATE FLOW `"
                + catalog
                + "`.`db`.`backfill` AS INSERT INTO ONCE `"
                + catalog
                + "`.`db`.`events` BY NAME");
    assertThat(tables.path("rows").toString())
        .isEqualTo("[[\"clicks\",\"SOURCE_TABLE\"],[\"events\",\"PIPELINE_TABLE\"]]");
    assertThat(schema.path("rows").valueStream().map(JsonNode::toString))
        .contains(
            "[\"" + catalog + "\",\"backfill\",\"FLOW\"]",
            "[\"" + catalog + "\",\"events\",\"PIPELINE_TABLE\"]")
        .allMatch(row -> row.startsWith("[\"" + catalog + "\","));
    assertThat(dropRead.status()).isEqualTo(409);
    assertThat(dropRead.body().path("detail").asString())
        .contains("is read by " + catalog + ".db.events");
    assertThat(secondFlow.body().path("code").asString()).isEqualTo("ALREADY_EXISTS");

    // Only the compute pool of a pipeline table changes in place, and only to a pool there is.
    Answer nowhere = sql("ALTER TABLE events SET TBLPROPERTIES ('compute-pool' = 'nosuch')");
    assertThat(nowhere.status()).as(nowhere.text()).isEqualTo(400);
    assertThat(nowhere.body().path("detail").asString()).contains("nosuch", "default");
    JsonNode same = ok("ALTER TABLE events SET TBLPROPERTIES ('compute-pool' = 'default')");
    assertThat(same.path(0).path("outcome").asString()).isEqualTo("UNCHANGED");
    Answer format = sql("ALTER TABLE events SET TBLPROPERTIES ('value.format' = 'avro')");
    assertThat(format.status()).isEqualTo(400);
    assertThat(format.body().path("line").asInt()).isEqualTo(1);
    assertThat(format.body().path("column").asInt()).isEqualTo(39);
    Answer ofSource = sql("ALTER TABLE clicks SET TBLPROPERTIES ('compute-pool' = 'default')");
    assertThat(ofSource.status()).as(ofSource.text()).isEqualTo(409);
    assertThat(ofSource.body().path("detail").asString()).contains("is a source table");
    assertThat(ok("SHOW CREATE MATERIALIZED TABLE events").toString())
        .doesNotContain("compute-pool");
  }

  @Test
  void shouldAnswerSyntaxErrorsWithPositionAndSnippet() {
    Answer answer = sql("SHOW MATERIALIZED TABLES;\nALTER MATERIALIZED TABLE t SUSPNED");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.contentType()).isEqualTo("application/problem+json");
    JsonNode problem = answer.body();
    assertThat(problem.path("code").asString()).isEqualTo("SQL_SYNTAX_ERROR");
    assertThat(problem.path("type").asString()).isEqualTo("/problems/sql-syntax-error");
    assertThat(problem.path("statementIndex").asInt()).isEqualTo(1);
    assertThat(problem.path("line").asInt()).isEqualTo(2);
    assertThat(problem.path("column").asInt()).isEqualTo(28);
    assertThat(problem.path("detail").asString())
        .startsWith("Expected ADD, MODIFY, DROP, SET")
        .endsWith("but found 'SUSPNED'");
    assertThat(problem.path("snippet").asString())
        .isEqualTo("ALTER MATERIALIZED TABLE t SUSPNED\n                           ^");
  }

  @Test
  void shouldValidateWithoutSideEffectsAndReturnTheCanonicalForm() {
    Answer answer =
        api.post(
            "/v1/statements/validate",
            Map.of(
                "statement",
                "create materialized table x with ('value.format'='avro-registry') as select 1"));

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body().path("results").path(0).path("statement").asString())
        .isEqualTo(
            "CREATE MATERIALIZED TABLE `x`\nWITH (\n  'value.format' = 'avro-registry'\n)\nAS\nselect 1");
    assertThat(sql("DESCRIBE x").status()).isEqualTo(404);
  }

  @Test
  void shouldRefuseAQuerySyntaxErrorAtItsPlaceWithoutAskingTheGateway() {
    double before = gatewayCalls();

    Answer refused =
        sql(
            "CREATE MATERIALIZED TABLE bad\nFRESHNESS = INTERVAL '1' MINUTE\nAS SELECT order_id,\n"
                + "FROM orders");

    assertThat(refused.status()).as(refused.text()).isEqualTo(400);
    assertThat(refused.body().path("code").asString()).isEqualTo("SQL_SYNTAX_ERROR");
    assertThat(refused.body().path("detail").asString()).startsWith("Syntax error in the query");
    assertThat(refused.body().path("line").asInt()).isEqualTo(4);
    assertThat(refused.body().path("column").asInt()).isEqualTo(1);
    assertThat(gatewayCalls()).as("calls to the SQL Gateway").isEqualTo(before);
  }

  private double gatewayCalls() {
    String metrics = api.get("/actuator/prometheus").text();
    Matcher m =
        Pattern.compile(
                "tributary_remote_call_seconds_count\\{outcome=\"\\w+\",system=\"flinkSqlGateway\"}"
                    + " (\\S+)")
            .matcher(metrics);
    double calls = 0;
    while (m.find()) {
      calls += Double.parseDouble(m.group(1));
    }
    return calls;
  }

  @Test
  void shouldCreateTablesConcurrentlyInANewCatalog() throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(8);
    List<Future<Answer>> creates = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String statement = "CREATE MATERIALIZED TABLE c" + i + " AS SELECT " + i;
      creates.add(clients.submit(() -> sql(statement)));
    }
    clients.shutdown();

    for (Future<Answer> f : creates) {
      assertThat(f.get().status()).as(f.get().text()).isEqualTo(200);
    }
    assertThat(ok("SHOW MATERIALIZED TABLES").path(0).path("rows").size()).isEqualTo(8);
  }

  /**
   * Twelve long scripts at once and reads beside them: every script and every read is answered.
   * Scripts hold a pooled connection while they run, and at most {@code max-concurrent} do.
   */
  @Test
  void shouldAnswerReadsWhileManyLongScriptsRun() throws Exception {
    String script = "SHOW TABLES;\n".repeat(500);
    ExecutorService clients = Executors.newFixedThreadPool(12);
    List<Future<Answer>> scripts = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      scripts.add(clients.submit(() -> api.sql(script, "examples", "marketplace")));
    }
    long slowest = 0;
    int reads = 0;
    double mostRunning = 0;
    Pattern gauge = Pattern.compile("(?m)^tributary_statements_running (\\S+)$");
    while (scripts.stream().anyMatch(f -> !f.isDone())) {
      long start = System.nanoTime();
      assertThat(api.get("/v1/catalogs").status()).isEqualTo(200);
      slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
      reads++;
      Matcher running = gauge.matcher(api.get("/actuator/prometheus").text());
      if (running.find()) {
        mostRunning = Math.max(mostRunning, Double.parseDouble(running.group(1)));
      }
    }
    clients.shutdown();
    for (Future<Answer> f : scripts) {
      assertThat(f.get().status()).as(f.get().text()).isEqualTo(200);
    }
    // Figures only. The slowest read took 4-13 s in isolation and under 2 s inside the warm full
    // suite, with the limit at 4 or at 12, and no more than 4 scripts were seen running at once
    // either way: this run does not show what the limit buys, so it asserts no time.
    System.out.printf(
        "12 scripts of 500 statements at once: %d reads meanwhile, slowest %d ms, at most %.0f"
            + " scripts seen running%n",
        reads, slowest, mostRunning);
    assertThat(reads).isPositive();
  }

  @Test
  void shouldRefuseMalformedRequests() {
    Answer missing = api.post("/v1/statements", Map.of("catalog", "c"));
    Answer garbage = api.post("/v1/statements", "{\"statement\": ");

    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.body().path("code").asString()).isEqualTo("VALIDATION_FAILED");
    assertThat(missing.body().path("detail").asString()).contains("'statement'");
    assertThat(garbage.status()).isEqualTo(400);
    assertThat(garbage.body().path("code").asString()).isEqualTo("MALFORMED_REQUEST");
  }
}
