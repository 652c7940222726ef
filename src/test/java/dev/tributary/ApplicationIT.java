package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import dev.tributary.port.Topics;
import dev.tributary.system.ErrorCode;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The running service: health, metrics, API documents and the example catalog. */
@TributaryIT
class ApplicationIT {

  @LocalServerPort int port;
  @Autowired Topics topics;
  @Autowired PlatformTransactionManager transactions;
  @Autowired ObjectProvider<Tracer> tracers;
  @Autowired ApplicationContext context;
  RestClient client;

  @BeforeEach
  void client() {
    client =
        RestClient.builder()
            .baseUrl("http://127.0.0.1:" + port)
            .defaultHeader("Authorization", "Bearer " + LocalStack.get().adminApiKey())
            .build();
  }

  /** GET that returns every answer, errors included, as status, headers and text. */
  private ResponseEntity<String> get(String path) {
    return client
        .get()
        .uri(path)
        .exchange(
            (req, res) ->
                ResponseEntity.status(res.getStatusCode())
                    .headers(res.getHeaders())
                    .body(new String(res.getBody().readAllBytes(), StandardCharsets.UTF_8)));
  }

  @Test
  void shouldServeAPageForEveryProblemTypeWithoutACredential() {
    RestClient anonymous = RestClient.builder().baseUrl("http://127.0.0.1:" + port).build();
    JsonNode problem = json(get("/v1/catalogs/examples/databases/none/materialized-tables/x"));
    String type = problem.path("type").asString();
    assertThat(type).isEqualTo("/problems/not-found");

    for (ErrorCode code : ErrorCode.values()) {
      JsonNode page =
          JsonMapper.shared()
              .readTree(anonymous.get().uri(code.type()).retrieve().body(String.class));
      assertThat(page.path("code").asString()).isEqualTo(code.name());
      assertThat(page.path("status").asInt()).isEqualTo(code.status());
      assertThat(page.path("meaning").asString()).as(code.name()).isNotBlank();
      assertThat(page.path("remedy").asString()).as(code.name()).isNotBlank();
    }
    String html =
        anonymous.get().uri(type).accept(MediaType.TEXT_HTML).retrieve().body(String.class);
    assertThat(html).startsWith("<!doctype html>").contains("NOT_FOUND (404)", "What to do");
    JsonNode index =
        JsonMapper.shared()
            .readTree(anonymous.get().uri("/problems").retrieve().body(String.class));
    assertThat(index.size()).isEqualTo(ErrorCode.values().length);

    ResponseEntity<String> unknown = get("/problems/no-such-code");
    assertThat(unknown.getStatusCode().value()).isEqualTo(404);
    assertThat(json(unknown).path("detail").asString()).contains("no-such-code");
  }

  @Test
  void shouldReportEveryDependencyUpInHealth() {
    JsonNode health = json(get("/actuator/health"));

    assertThat(health.path("status").asString()).isEqualTo("UP");
    for (String component : List.of("db", "kafka", "schemaRegistry", "flink")) {
      assertThat(health.path("components").path(component).path("status").asString())
          .as(component)
          .isEqualTo("UP");
    }
    assertThat(
            health.path("components").path("flink").path("details").path("sqlGateway").asString())
        .contains("2.2.1");
  }

  @Test
  void shouldIncludeTheDatabaseInReadinessButNotInLiveness() {
    JsonNode readiness = json(get("/actuator/health/readiness"));
    JsonNode liveness = json(get("/actuator/health/liveness"));

    assertThat(readiness.path("status").asString()).isEqualTo("UP");
    assertThat(readiness.path("components").has("db")).isTrue();
    assertThat(liveness.path("status").asString()).isEqualTo("UP");
    assertThat(liveness.path("components").has("db")).isFalse();
  }

  @Test
  void shouldExposePrometheusMetrics() {
    ResponseEntity<String> metrics = get("/actuator/prometheus");

    assertThat(metrics.getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(metrics.getBody())
        .contains("jvm_memory_used_bytes")
        .contains("hikaricp_connections")
        .contains("tributary_tables{phase=\"RUNNING\"}")
        .contains("tributary_tables{phase=\"FAILED\"}");
  }

  @Test
  void shouldRefuseARemoteCallInsideADatabaseTransaction() {
    TransactionTemplate tx = new TransactionTemplate(transactions);

    assertThatThrownBy(() -> tx.executeWithoutResult(s -> topics.describe("orders")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("kafka.describe called inside a database transaction");
    assertThatCode(() -> topics.describe("orders")).doesNotThrowAnyException();
    assertThat(get("/actuator/prometheus").getBody())
        .contains("tributary_remote_calls_in_transaction_total{system=\"kafka\"}");
  }

  /**
   * Traces leave the process only with MANAGEMENT_TRACING_EXPORT_ENABLED=true: by default there is
   * no span exporter (spans still tie a request's log lines together by trace id).
   */
  @Test
  void shouldExportNoSpansUnlessAsked() {
    assertThat(context.getBeansOfType(SpanExporter.class)).isEmpty();
    assertThat(tracers.getIfAvailable()).isNotNull();
  }

  @Test
  void shouldServeSwaggerUi() {
    ResponseEntity<String> ui = get("/swagger-ui/index.html");

    assertThat(ui.getStatusCode()).isEqualTo(HttpStatus.OK);
    assertThat(ui.getBody()).contains("swagger-ui");
  }

  /**
   * The committed openapi/openapi.yaml is the API's contract. To accept a change, run the ITs with
   * -Dopenapi.update=true and commit the file.
   */
  @Test
  void shouldServeTheCommittedOpenApiDocument() throws Exception {
    String served = get("/v3/api-docs.yaml").getBody();
    Path committed = Path.of("openapi", "openapi.yaml");
    if (Boolean.getBoolean("openapi.update")) {
      Files.writeString(committed, served);
    }

    assertThat(served)
        .as(
            "served /v3/api-docs differs from openapi/openapi.yaml; rerun with -Dopenapi.update=true")
        .isEqualTo(Files.readString(committed));
  }

  /**
   * Good enough to generate a client from: every operation has a unique operationId that is not
   * springdoc's method-name default with a counter, a summary, a success response, and the problem
   * responses every call can get (400, 401, 403, 500, 503), each a Problem document; operations
   * with a path variable also document 404, and those with a request body 415.
   */
  @Test
  void shouldDocumentEveryOperationForClientGeneration() throws Exception {
    JsonNode doc = JsonMapper.shared().readTree(get("/v3/api-docs").getBody());
    List<String> seen = new ArrayList<>();
    int operations = 0;
    for (String path : doc.path("paths").propertyNames()) {
      for (String method : doc.path("paths").path(path).propertyNames()) {
        JsonNode op = doc.path("paths").path(path).path(method);
        String what = method.toUpperCase() + " " + path;
        String id = op.path("operationId").asString("");
        assertThat(id).as(what + " operationId").matches("[a-z][A-Za-z]+");
        assertThat(seen).as(what + " operationId is unique").doesNotContain(id);
        seen.add(id);
        assertThat(op.path("summary").asString("")).as(what + " summary").isNotBlank();
        JsonNode responses = op.path("responses");
        assertThat(responses.propertyNames().stream().anyMatch(s -> s.startsWith("2")))
            .as(what + " has a success response")
            .isTrue();
        List<String> errors = new ArrayList<>(List.of("400", "401", "403", "500", "503"));
        if (path.contains("{")) {
          errors.add("404");
        }
        if (op.has("requestBody")) {
          errors.add("415");
        }
        for (String status : errors) {
          JsonNode problem =
              responses.path(status).path("content").path("application/problem+json");
          assertThat(problem.path("schema").path("$ref").asString(""))
              .as(what + " " + status + " is a Problem")
              .isEqualTo("#/components/schemas/Problem");
        }
        operations++;
      }
    }
    assertThat(operations).isGreaterThan(25);
    JsonNode problem = doc.path("components").path("schemas").path("Problem").path("properties");
    assertThat(problem.propertyNames()).contains("type", "title", "status", "detail", "code");
  }

  @Test
  void shouldPageEveryListWithLimitAndAToken() {
    String tables = "/v1/catalogs/examples/databases/marketplace/tables";
    List<String> names = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      JsonNode page = json(get(tables + "?limit=1" + (token == null ? "" : "&pageToken=" + token)));
      page.path("items").forEach(t -> names.add(t.path("metadata").path("name").asString()));
      token = page.path("nextPageToken").asString(null);
      pages++;
    } while (token != null && pages < 10);
    assertThat(names).containsExactly("customers", "orders", "products");
    assertThat(pages).isEqualTo(3);

    ResponseEntity<String> foreign =
        get(
            "/v1/catalogs?pageToken="
                + json(get(tables + "?limit=1")).path("nextPageToken").asString());
    assertThat(foreign.getStatusCode().value()).isEqualTo(400);
    assertThat(json(foreign).path("detail").asString()).contains("pageToken");
    assertThat(get(tables + "?limit=0").getStatusCode().value()).isEqualTo(400);
    ResponseEntity<String> missing =
        get("/v1/catalogs/examples/databases/nowhere/materialized-tables");
    assertThat(missing.getStatusCode().value()).isEqualTo(404);
    assertThat(json(missing).path("detail").asString()).contains("examples.nowhere");
  }

  @Test
  void shouldListTheExampleCatalogsSourceTables() {
    JsonNode tables = json(get("/v1/catalogs/examples/databases/marketplace/tables")).path("items");

    assertThat(tables.valueStream().map(t -> t.path("metadata").path("name").asString()))
        .containsExactly("customers", "orders", "products");
    JsonNode orders = json(get("/v1/catalogs/examples/databases/marketplace/tables/orders"));
    assertThat(orders.path("kind").asString()).isEqualTo("SourceTable");
    assertThat(orders.path("apiVersion").asString()).isEqualTo("tributary.dev/v2");
    assertThat(orders.path("spec").path("schema").path("watermark").path("column").asString())
        .isEqualTo("event_time");
    assertThat(orders.path("spec").path("statement").asString())
        .startsWith("CREATE TABLE `examples`.`marketplace`.`orders` (");
  }

  @Test
  void shouldAnswerAProblemForAnUnknownCatalog() {
    ResponseEntity<String> response = get("/v1/catalogs/nope/databases");

    assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
    assertThat(response.getHeaders().getContentType())
        .isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    JsonNode problem = json(response);
    assertThat(problem.path("code").asString()).isEqualTo("NOT_FOUND");
    assertThat(problem.path("detail").asString()).isEqualTo("Catalog 'nope' does not exist");
  }

  @Test
  void shouldFeedTheExampleTopicsWithJoinableRows() {
    String kafka = LocalStack.get().kafkaBootstrapServers();
    List<String> orders =
        TopicReader.values(
            kafka, ExampleCatalog.topic("orders"), 10, Duration.ofSeconds(30), false);
    List<String> customers =
        TopicReader.values(
            kafka, ExampleCatalog.topic("customers"), 100, Duration.ofSeconds(30), false);

    assertThat(orders).hasSizeGreaterThanOrEqualTo(10);
    List<Integer> customerIds =
        customers.stream()
            .map(c -> JsonMapper.shared().readTree(c).path("customer_id").asInt())
            .toList();
    assertThat(orders)
        .allSatisfy(
            order -> {
              JsonNode row = JsonMapper.shared().readTree(order);
              assertThat(customerIds).contains(row.path("customer_id").asInt());
              assertThat(row.path("event_time").asString())
                  .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}");
            });
  }

  private static JsonNode json(ResponseEntity<String> response) {
    return JsonMapper.shared().readTree(response.getBody());
  }
}
