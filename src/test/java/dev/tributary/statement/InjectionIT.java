package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Identifiers, option keys and values, comments and queries written to break out of their place:
 * every statement that reaches the SQL Gateway (seen by a recording proxy in front of it) is one
 * statement, with no hint in it, whatever the user wrote.
 */
@TributaryIT
class InjectionIT {

  static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());
  static HttpServer proxy;

  /** Forwards every request to the real gateway and keeps the statements it carries. */
  @DynamicPropertySource
  static void recordingGateway(DynamicPropertyRegistry registry) throws IOException {
    URI gateway = URI.create(LocalStack.get().sqlGatewayUrl().toString());
    HttpClient http = HttpClient.newHttpClient();
    proxy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    proxy.createContext(
        "/",
        exchange -> {
          try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
              body = in.readAllBytes();
            }
            String path = exchange.getRequestURI().toString();
            if (path.endsWith("/statements") && body.length > 0) {
              SEEN.add(JsonMapper.shared().readTree(body).path("statement").asString());
            }
            HttpRequest.Builder forward =
                HttpRequest.newBuilder(gateway.resolve(path))
                    .method(
                        exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (type != null) {
              forward.header("Content-Type", type);
            }
            HttpResponse<byte[]> answer =
                http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
            answer
                .headers()
                .firstValue("Content-Type")
                .ifPresent(t -> exchange.getResponseHeaders().add("Content-Type", t));
            exchange.sendResponseHeaders(
                answer.statusCode(), answer.body().length == 0 ? -1 : answer.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(answer.body());
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    proxy.start();
    registry.add(
        "tributary.flink.sql-gateway-url",
        () -> "http://127.0.0.1:" + proxy.getAddress().getPort());
  }

  @AfterAll
  static void stop() {
    proxy.stop(0);
  }

  @LocalServerPort int port;

  private static final SqlParser.Config FLINK =
      SqlParser.config()
          .withParserFactory(FlinkSqlParserImpl.FACTORY)
          .withConformance(FlinkSqlConformance.DEFAULT)
          .withQuoting(Quoting.BACK_TICK)
          .withUnquotedCasing(Casing.UNCHANGED)
          .withQuotedCasing(Casing.UNCHANGED);

  @Test
  void shouldSendOneStatementAtATimeWhateverTheUserWrote() throws Exception {
    Api api = new Api(port);
    List<String> attempts =
        List.of(
            // identifiers
            "CREATE MATERIALIZED TABLE `inj``; DROP TABLE orders; --` AS SELECT order_id FROM orders",
            "CREATE MATERIALIZED TABLE inj_a AS SELECT order_id AS `x``; DROP TABLE orders; --`"
                + " FROM orders",
            // option keys and values of a source table
            "CREATE TABLE inj_src (order_id STRING) WITH ('connector' = 'kafka', 'topic' ="
                + " 'orders'';DROP TABLE orders;--', 'format' = 'json', 'scan.startup.mode' ="
                + " 'earliest-offset')",
            "CREATE TABLE inj_src2 (order_id STRING) WITH ('connector' = 'kafka', 'topic' ="
                + " 'orders', 'format' = 'json', 'x'' = ''1'');DROP TABLE orders;--' = 'v')",
            "CREATE MATERIALIZED TABLE inj_b AS SELECT order_id FROM inj_src",
            "CREATE MATERIALIZED TABLE inj_b2 AS SELECT order_id FROM inj_src2",
            // comments: a line comment at the end of the query, a block comment in it
            "CREATE MATERIALIZED TABLE inj_c AS SELECT order_id FROM orders -- ) ; DROP TABLE orders",
            "CREATE MATERIALIZED TABLE inj_d AS SELECT order_id /* ; DROP TABLE orders; */ FROM"
                + " orders",
            "CREATE MATERIALIZED TABLE inj_e COMMENT 'x''); DROP TABLE orders; --' AS SELECT"
                + " order_id FROM orders",
            "CREATE MATERIALIZED TABLE inj_f (order_id STRING COMMENT '*/ ; DROP TABLE orders')"
                + " AS SELECT order_id FROM orders",
            // hints
            "CREATE MATERIALIZED TABLE inj_g AS SELECT /*+ OPTIONS('properties.bootstrap.servers'"
                + " = 'evil:9092') */ order_id FROM orders",
            "CREATE MATERIALIZED TABLE inj_h AS SELECT order_id FROM orders /*+"
                + " OPTIONS('scan.startup.mode'='latest-offset') */",
            // unicode escapes and semicolons in strings
            "CREATE MATERIALIZED TABLE inj_i AS SELECT order_id, U&'\\0027; DROP TABLE orders; --'"
                + " AS u FROM orders",
            "CREATE MATERIALIZED TABLE inj_j AS SELECT order_id, ';' AS s FROM orders WHERE"
                + " order_id <> ''';DROP TABLE orders;--'",
            // a second statement after the query, in one statement's place
            "CREATE MATERIALIZED TABLE inj_k AS SELECT order_id FROM orders; DROP TABLE orders");
    List<String> outcomes = new ArrayList<>();
    List<String> created = new ArrayList<>();
    for (String attempt : attempts) {
      Answer answer = api.sql(attempt, "examples", "marketplace");
      outcomes.add(answer.status() + " " + answer.body().path("code").asString("") + " " + attempt);
      JsonNode resource = answer.body().path("results").path(0).path("resource");
      if (answer.status() == 200 && resource.path("type").asString().equals("MATERIALIZED_TABLE")) {
        created.add(resource.path("name").asString());
      }
    }
    // Their jobs are submitted too: the INSERT around each query is what the gateway runs.
    for (String table : created) {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> Set.of("RUNNING", "FAILED").contains(api.phase(table)));
    }
    for (String table : created) {
      api.sql("DROP MATERIALIZED TABLE " + table, "examples", "marketplace");
    }
    List<String> seen;
    synchronized (SEEN) {
      seen = List.copyOf(SEEN);
    }
    System.out.println("InjectionIT: " + seen.size() + " statements reached the gateway");
    outcomes.forEach(o -> System.out.println("InjectionIT: " + o));
    assertThat(seen).isNotEmpty();
    for (String statement : seen) {
      assertThat(statement).as("a hint reached the gateway").doesNotContain("/*+");
      int count;
      try {
        count = SqlParser.create(statement, FLINK).parseStmtList().size();
      } catch (SqlParseException e) {
        // Gateway-only commands (SET, RESET, ...) are not Flink SQL; they are sent by the
        // service itself and carry no user text.
        assertThat(statement).as(e.getMessage()).matches("(?s)^(SET|RESET) .*");
        continue;
      }
      assertThat(count).as(statement).isEqualTo(1);
    }
    // The hints are refused with their line and column; the orders table is still there.
    assertThat(outcomes.stream().filter(o -> o.contains("/*+")))
        .allMatch(o -> o.startsWith("400 UNSUPPORTED_CLAUSE"));
    // A script of two statements is two statements, and atomic: the DROP is refused (the source
    // is read), so the CREATE before it is not kept either.
    assertThat(api.get(Api.EXAMPLE_TABLES + "inj_k").status()).isEqualTo(404);
    assertThat(created).contains("inj_a", "inj_c", "inj_d", "inj_e", "inj_f", "inj_i", "inj_j");
    assertThat(api.sql("DESCRIBE orders", "examples", "marketplace").status()).isEqualTo(200);
    Set<String> stored =
        Set.copyOf(
            api.get("/v1/catalogs/examples/databases/marketplace/tables")
                .body()
                .path("items")
                .findValuesAsString("name"));
    assertThat(stored).contains("orders");
  }
}
