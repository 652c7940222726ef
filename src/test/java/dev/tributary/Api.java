package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.local.LocalStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small HTTP client for tests of the running service: every answer, errors included. */
public final class Api {

  /** Status, content type and JSON body of an answer. */
  public record Answer(
      int status, String contentType, JsonNode body, String text, HttpHeaders headers) {}

  private final RestClient http;

  /** A client with the local stack's admin key. */
  public Api(int port) {
    this(port, LocalStack.get().adminApiKey());
  }

  /** A client that sends this bearer token, or none when it is null. */
  public Api(int port, String token) {
    RestClient.Builder builder = RestClient.builder().baseUrl("http://127.0.0.1:" + port);
    if (token != null) {
      builder.defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token);
    }
    this.http = builder.build();
  }

  public Answer get(String path) {
    return read(http.get().uri(path));
  }

  public Answer post(String path, Object body) {
    return read(http.post().uri(path).contentType(MediaType.APPLICATION_JSON).body(body));
  }

  public Answer put(String path, String ifMatch, Object body) {
    var request = http.put().uri(path).contentType(MediaType.APPLICATION_JSON);
    if (ifMatch != null) {
      request = request.header("If-Match", ifMatch);
    }
    return read(request.body(body));
  }

  /** Any method, with a JSON body when {@code body} is not null. */
  public Answer call(String method, String path, Object body) {
    var request = http.method(HttpMethod.valueOf(method)).uri(path);
    if (body != null) {
      return read(request.contentType(MediaType.APPLICATION_JSON).body(body));
    }
    return read(request);
  }

  public Answer delete(String path, String ifMatch) {
    var request = http.delete().uri(path);
    if (ifMatch != null) {
      request = request.header("If-Match", ifMatch);
    }
    return read(request);
  }

  /** POST /v1/statements with a context. */
  public Answer sql(String statement, String catalog, String database) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("statement", statement);
    body.put("catalog", catalog);
    body.put("database", database);
    return post("/v1/statements", body);
  }

  /** The example database, where most tests create their tables. */
  public static final String EXAMPLE_TABLES =
      "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  /** Runs a statement in the example database; it must answer 200. Returns its results. */
  public JsonNode ok(String statement) {
    Answer answer = sql(statement, "examples", "marketplace");
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer.body().path("results");
  }

  /** The phase of a table of the example database. */
  public String phase(String name) {
    return get(EXAMPLE_TABLES + name).body().path("status").path("phase").asString();
  }

  /** The messages of the example database's table's events with that reason, oldest first. */
  public List<String> eventMessages(String name, String reason) {
    return get(EXAMPLE_TABLES + name + "/events?limit=200")
        .body()
        .path("items")
        .valueStream()
        .filter(e -> e.path("reason").asString().equals(reason))
        .map(e -> e.path("message").asString())
        .toList();
  }

  /** Waits (up to 90 s) until the example database's table is in the phase. */
  public void awaitPhase(String name, String phase) {
    awaitPhase("marketplace", name, phase);
  }

  /** Waits (up to 90 s) until a table of the examples catalog's database is in the phase. */
  public void awaitPhase(String database, String name, String phase) {
    String path = "/v1/catalogs/examples/databases/" + database + "/materialized-tables/" + name;
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () ->
                assertThat(get(path).body().path("status").path("phase").asString())
                    .as(get(path).text())
                    .isEqualTo(phase));
  }

  /** Drops every materialized table of a database (the reconciler removes them soon after). */
  public void dropMaterializedTables(String catalog, String database) {
    get("/v1/catalogs/" + catalog + "/databases/" + database + "/materialized-tables?limit=500")
        .body()
        .path("items")
        .forEach(
            t ->
                sql(
                    "DROP MATERIALIZED TABLE IF EXISTS "
                        + t.path("metadata").path("name").asString(),
                    catalog,
                    database));
  }

  private static Answer read(RestClient.RequestHeadersSpec<?> request) {
    return request.exchange(
        (req, res) -> {
          String text = new String(res.getBody().readAllBytes(), StandardCharsets.UTF_8);
          JsonNode body;
          try {
            body =
                text.isBlank()
                    ? JsonMapper.shared().missingNode()
                    : JsonMapper.shared().readTree(text);
          } catch (tools.jackson.core.JacksonException e) {
            body = JsonMapper.shared().missingNode();
          }
          MediaType type = res.getHeaders().getContentType();
          return new Answer(
              res.getStatusCode().value(),
              type == null ? null : type.toString(),
              body,
              text,
              HttpHeaders.copyOf(res.getHeaders()));
        });
  }
}
