package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.DockerfileIT;
import dev.tributary.local.LocalStack;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Logs and traces of the packaged service jar as its own process on the local stack, with both
 * switched on as documented. Traces go to an OTLP/HTTP receiver on loopback, which sees the spans
 * of the request, of the reconcile pass and of the remote calls. Logs: the documented switch to
 * JSON logs ({@code LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs}) on the packaged service jar (the test
 * class path has its own logback-test.xml, which the switch does not reach), as its own process on
 * the local stack: every line it writes is one JSON object, a request's lines carry its {@code
 * request_id} (the caller's {@code X-Request-Id}) and {@code principal}, and a pass's lines the
 * {@code table} and {@code pass}.
 */
class TelemetryIT {

  static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void shouldWriteJsonLinesThatNameTheRequestThePrincipalAndTheTable() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    Map<String, String> env = stack.environment("logs_" + uid);
    env.put("LOGGING_STRUCTURED_FORMAT_CONSOLE", "ecs");
    List<byte[]> exported = new CopyOnWriteArrayList<>();
    HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext(
        "/v1/traces",
        exchange -> {
          exported.add(exchange.getRequestBody().readAllBytes());
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    collector.start();
    env.put("MANAGEMENT_TRACING_EXPORT_ENABLED", "true");
    env.put(
        "MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT",
        "http://127.0.0.1:" + collector.getAddress().getPort() + "/v1/traces");
    env.put("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_SCHEDULE_DELAY", "200ms");
    Path logs = Path.of("target", "faults", "logs-" + uid);
    String table = "logged_" + uid;
    try (ServiceProcess service = new ServiceProcess(env, logs, DockerfileIT.serviceJar())) {
      service.start();
      String requestId = "ci-run-" + uid;
      HttpResponse<String> created =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(service.baseUrl() + "/v1/statements"))
                      .header("Authorization", "Bearer " + stack.adminApiKey())
                      .header("Content-Type", "application/json")
                      .header("X-Request-Id", requestId)
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              JSON.writeValueAsString(
                                  Map.of(
                                      "statement",
                                      "CREATE MATERIALIZED TABLE "
                                          + table
                                          + " AS SELECT 1 AS n, 'logged' AS what",
                                      "catalog",
                                      "logging",
                                      "database",
                                      "checks"))))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      assertThat(created.headers().firstValue("X-Request-Id")).contains(requestId);
      // The packaged jar carries Flink's planner: the query was described in its process, not by
      // the gateway (which runs the same Flink).
      assertThat(created.headers().firstValue("Server-Timing"))
          .get()
          .asString()
          .contains("flinkPlanner;dur=");
      String qualified = "logging.checks." + table;

      List<JsonNode> lines =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () -> lines(logs.resolve("service-1.log")),
                  all ->
                      all.stream()
                          .anyMatch(
                              l ->
                                  qualified.equals(l.path("table").asString(""))
                                      && l.path("message")
                                          .asString("")
                                          .startsWith("JobSubmitted")));

      assertThat(lines)
          .as("audit line of the CREATE, with its request and principal")
          .anySatisfy(
              l -> {
                assertThat(l.path("log").path("logger").asString()).isEqualTo("tributary.audit");
                assertThat(l.path("message").asString()).contains(qualified);
                assertThat(l.path("request_id").asString()).isEqualTo(requestId);
                assertThat(l.path("principal").asString()).isNotBlank();
              });
      assertThat(lines)
          .as("event lines of the table's passes")
          // The database is new: its one table is the only one with events.
          .filteredOn(l -> l.path("log").path("logger").asString("").equals("tributary.events"))
          .isNotEmpty()
          .allSatisfy(
              l -> {
                assertThat(l.path("table").asString()).isEqualTo(qualified);
                assertThat(l.path("pass").asString()).isNotBlank();
              });
      // The spans, as OTLP protobuf: their names and attribute values are stored as text.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                String spans =
                    exported.stream()
                        .map(b -> new String(b, StandardCharsets.ISO_8859_1))
                        .reduce("", String::concat);
                assertThat(spans)
                    .contains("reconcile pass", qualified)
                    .contains("flinkSqlGateway")
                    .contains("kafka")
                    .containsPattern("http post /v1/statements|POST /v1/statements|http post")
                    // Spring Security's own spans are off (SecurityConfiguration).
                    .doesNotContain("security filterchain");
              });
      assertThat(lines)
          .as("the request's lines carry its trace")
          .filteredOn(l -> requestId.equals(l.path("request_id").asString("")))
          .allSatisfy(l -> assertThat(l.path("traceId").asString("")).hasSize(32));
      service.terminate();
    } finally {
      collector.stop(0);
    }
  }

  /** The log's lines, each of which must be a JSON object. */
  static List<JsonNode> lines(Path file) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.isBlank()) {
        continue;
      }
      assertThat(line).as("every line is a JSON object").startsWith("{");
      lines.add(JSON.readTree(line));
    }
    return lines;
  }
}
