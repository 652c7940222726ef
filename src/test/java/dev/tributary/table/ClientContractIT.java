package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.DeserializationFeature;
import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.client.ApiClient;
import dev.tributary.client.ApiException;
import dev.tributary.client.ApiResponse;
import dev.tributary.client.api.MaterializedTablesApi;
import dev.tributary.client.api.StatementsApi;
import dev.tributary.client.model.MaterializedTable;
import dev.tributary.client.model.PageTableEvent;
import dev.tributary.client.model.PutMaterializedTable200Response;
import dev.tributary.client.model.PutRequest;
import dev.tributary.client.model.RefreshTable202Response;
import dev.tributary.client.model.ScriptResponse;
import dev.tributary.client.model.SpecRequest;
import dev.tributary.client.model.StatementRequest;
import dev.tributary.client.model.TableEvent;
import dev.tributary.client.model.VersionResponse;
import dev.tributary.local.LocalStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A table's whole life through a client generated from the committed {@code openapi/openapi.yaml}
 * alone (openapi-generator, Java native library): what the document says is what the service does.
 * The client's JSON reader refuses properties the document does not declare and enum values it does
 * not list, so a field, a type, a status code or a media type that drifts fails here.
 */
@TributaryIT
class ClientContractIT {

  static final String CATALOG = "examples";
  static final String DATABASE = "marketplace";

  @LocalServerPort int port;
  StatementsApi statements;
  MaterializedTablesApi tables;
  final String suffix = UUID.randomUUID().toString().substring(0, 6);

  @BeforeEach
  void client() {
    ApiClient client = new ApiClient();
    client.updateBaseUri("http://127.0.0.1:" + port);
    client.setRequestInterceptor(
        request -> request.header("Authorization", "Bearer " + LocalStack.get().adminApiKey()));
    client.setObjectMapper(
        client
            .getObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .configure(DeserializationFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL, false));
    statements = new StatementsApi(client);
    tables = new MaterializedTablesApi(client);
  }

  @AfterEach
  void dropTables() {
    new Api(port).dropMaterializedTables(CATALOG, DATABASE);
  }

  private ScriptResponse sql(String statement, boolean dryRun) throws ApiException {
    return statements.executeStatements(
        new StatementRequest()
            .statement(statement)
            .catalog(CATALOG)
            .database(DATABASE)
            .dryRun(dryRun));
  }

  private String phase(String name) throws ApiException {
    return tables
        .getMaterializedTable(CATALOG, DATABASE, name, null)
        .getStatus()
        .getPhase()
        .getValue();
  }

  private void awaitPhase(String name, String phase) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> phase(name).equals(phase));
  }

  /** The problem a failed call answered with, read as the document's Problem schema. */
  private static JsonNode problem(ApiException e) {
    return JsonMapper.shared().readTree(e.getResponseBody());
  }

  @Test
  void shouldDriveATableThroughItsLifeWithTheGeneratedClient() throws Exception {
    String byStatement = "contract_s_" + suffix;
    String byPut = "contract_p_" + suffix;
    String putStatement =
        "CREATE MATERIALIZED TABLE "
            + byPut
            + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM orders";

    // Created by statement, and by PUT (201 with Location and the table).
    ScriptResponse created =
        sql(
            "CREATE MATERIALIZED TABLE "
                + byStatement
                + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM orders",
            false);
    assertThat(created.getResults()).hasSize(1);
    assertThat(created.getResults().get(0).getResource().getName()).isEqualTo(byStatement);
    ApiResponse<PutMaterializedTable200Response> put =
        tables.putMaterializedTableWithHttpInfo(
            CATALOG,
            DATABASE,
            byPut,
            new PutRequest().spec(new SpecRequest().statement(putStatement)),
            null,
            "*");
    assertThat(put.getStatusCode()).isEqualTo(201);
    assertThat(put.getHeaders().entrySet())
        .anySatisfy(
            h -> {
              assertThat(h.getKey()).isEqualToIgnoringCase("Location");
              assertThat(h.getValue().get(0)).endsWith("/materialized-tables/" + byPut);
            });
    MaterializedTable fromPut = put.getData().getMaterializedTable();
    assertThat(fromPut.getKind()).isEqualTo("MaterializedTable");
    assertThat(fromPut.getMetadata().getGeneration()).isEqualTo(1);
    // One GET that waits, right after the PUT: answered once the new table has settled, RUNNING
    // at generation 1 (without the wait, it would answer CREATING at observedGeneration 0).
    MaterializedTable settled = tables.getMaterializedTable(CATALOG, DATABASE, byPut, 60);
    assertThat(settled.getStatus().getObservedGeneration()).isEqualTo(1L);
    assertThat(settled.getStatus().getPhase().getValue()).isEqualTo("RUNNING");
    ApiException tooLong =
        catchThrowableOfType(
            ApiException.class, () -> tables.getMaterializedTable(CATALOG, DATABASE, byPut, 61));
    assertThat(tooLong.getCode()).isEqualTo(400);
    assertThat(problem(tooLong).path("code").asString()).isEqualTo("VALIDATION_FAILED");
    awaitPhase(byStatement, "RUNNING");

    // A plan (dry run): nothing changes.
    ScriptResponse plan =
        sql(
            "CREATE OR ALTER MATERIALIZED TABLE "
                + byStatement
                + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM orders WHERE"
                + " price > 1",
            true);
    assertThat(plan.getDryRun()).isTrue();
    assertThat(plan.getResults().get(0).getPlan()).isNotNull();

    // Suspend and resume.
    sql("ALTER MATERIALIZED TABLE " + byStatement + " SUSPEND", false);
    awaitPhase(byStatement, "STOPPED");
    sql("ALTER MATERIALIZED TABLE " + byStatement + " RESUME", false);
    awaitPhase(byStatement, "RUNNING");

    // Evolve: a second version, and events that say what happened.
    sql(
        "CREATE OR ALTER MATERIALIZED TABLE "
            + byStatement
            + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM orders WHERE price"
            + " > 1",
        false);
    // Instead of polling: each GET answers once the evolution has settled, or after 60 s.
    MaterializedTable evolved =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(10))
            .until(
                () -> tables.getMaterializedTable(CATALOG, DATABASE, byStatement, 60),
                t -> t.getStatus().getObservedGeneration().equals(t.getMetadata().getGeneration()));
    assertThat(evolved.getStatus().getPhase().getValue()).isEqualTo("RUNNING");
    assertThat(evolved.getApiVersion()).isEqualTo("tributary.dev/v2");
    assertThat(evolved.getStatus().getConditions())
        .extracting(c -> c.getType())
        .contains("Ready", "TopicReady", "SchemaRegistered", "JobRunning");
    assertThat(evolved.getStatus().getConditions())
        .as("at rest, every condition holds as of the generation")
        .allSatisfy(
            c ->
                assertThat(c.getObservedGeneration())
                    .isEqualTo(evolved.getMetadata().getGeneration()));
    assertThat(evolved.getStatus().getJob().getId()).hasSize(32);
    assertThat(evolved.getStatus().getTopic().getName()).isEqualTo(byStatement);
    List<VersionResponse> versions =
        tables.listTableVersions(CATALOG, DATABASE, byStatement, null, null).getItems();
    assertThat(versions).hasSizeGreaterThanOrEqualTo(2);
    // Events a page of one at a time, to the end: each once, in order.
    List<TableEvent> events = new ArrayList<>();
    String token = null;
    do {
      PageTableEvent page =
          tables.listTableEvents(CATALOG, DATABASE, byStatement, null, 1, token, null, null);
      assertThat(page.getItems()).hasSizeLessThanOrEqualTo(1);
      events.addAll(page.getItems());
      token = page.getNextPageToken();
    } while (token != null);
    assertThat(events).extracting(TableEvent::getId).isSorted().doesNotHaveDuplicates();
    assertThat(events).isNotEmpty();
    assertThat(events).allSatisfy(e -> assertThat(e.getTable()).endsWith(byStatement));

    // A stale If-Match is a 412 problem; a second CREATE of the same name a 409.
    long resourceVersion =
        tables
            .getMaterializedTable(CATALOG, DATABASE, byPut, null)
            .getMetadata()
            .getResourceVersion();
    ApiException stale =
        catchThrowableOfType(
            ApiException.class,
            () ->
                tables.putMaterializedTable(
                    CATALOG,
                    DATABASE,
                    byPut,
                    new PutRequest().spec(new SpecRequest().statement(putStatement).stopped(true)),
                    "\"" + (resourceVersion - 1) + "\"",
                    null));
    assertThat(stale.getCode()).isEqualTo(412);
    assertThat(problem(stale).path("code").asString()).isEqualTo("PRECONDITION_FAILED");
    ApiException exists =
        catchThrowableOfType(
            ApiException.class,
            () ->
                sql(
                    "CREATE MATERIALIZED TABLE " + byPut + " AS SELECT order_id FROM orders",
                    false));
    assertThat(exists.getCode()).isEqualTo(409);
    assertThat(problem(exists).path("type").asString()).isEqualTo("/problems/already-exists");

    // Drop: 202 with the table DELETING, then a 404 problem.
    ApiResponse<MaterializedTable> dropped =
        tables.dropMaterializedTableWithHttpInfo(CATALOG, DATABASE, byPut, null);
    assertThat(dropped.getStatusCode()).isEqualTo(202);
    assertThat(dropped.getData().getStatus().getPhase().getValue()).isEqualTo("DELETING");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                catchThrowableOfType(
                        ApiException.class,
                        () -> tables.getMaterializedTable(CATALOG, DATABASE, byPut, null))
                    != null);
    ApiException gone =
        catchThrowableOfType(
            ApiException.class, () -> tables.getMaterializedTable(CATALOG, DATABASE, byPut, null));
    assertThat(gone.getCode()).isEqualTo(404);
    assertThat(problem(gone).path("code").asString()).isEqualTo("NOT_FOUND");
  }

  @Test
  void shouldRefreshAFullTableAndListAPipelineTablesFlowsWithTheGeneratedClient() throws Exception {
    String full = "contract_f_" + suffix;
    sql(
        "CREATE MATERIALIZED TABLE "
            + full
            + " FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = FULL AS SELECT order_id, COUNT(*) AS n"
            + " FROM orders GROUP BY order_id",
        false);
    awaitPhase(full, "RUNNING");
    ApiResponse<RefreshTable202Response> refresh =
        tables.refreshTableWithHttpInfo(CATALOG, DATABASE, full, null);
    assertThat(refresh.getStatusCode()).isEqualTo(202);
    assertThat(refresh.getData().getTableRefresh().getNumber()).isPositive();
    long number = refresh.getData().getTableRefresh().getNumber();
    assertThat(tables.listTableRefreshes(CATALOG, DATABASE, full, 10, null).getItems())
        .as("the refresh just asked for is listed")
        .anySatisfy(r -> assertThat(r.getNumber()).isEqualTo(number));

    String pipeline = "contract_t_" + suffix;
    sql(
        "CREATE TABLE "
            + pipeline
            + " (order_id STRING, price DOUBLE)"
            + " FLOW INSERT BY NAME SELECT order_id, price FROM STREAM(orders)",
        false);
    List<MaterializedTable> flows =
        tables.listTableFlows(CATALOG, DATABASE, pipeline, null, null).getItems();
    assertThat(flows).hasSize(1);
    assertThat(flows.get(0).getKind()).isEqualTo("Flow");
    MaterializedTable table = tables.getMaterializedTable(CATALOG, DATABASE, pipeline, null);
    assertThat(table.getKind()).isEqualTo("PipelineTable");
  }
}
