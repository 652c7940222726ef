package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Server-Sent Events of the event log, and the lineage graph, on the real stack. */
@TributaryIT
class EventStreamIT {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;

  /** Reads a stream in the background, keeping each event's id and data. */
  private final class Stream implements AutoCloseable {
    final List<JsonNode> events = new CopyOnWriteArrayList<>();
    final List<Long> ids = new CopyOnWriteArrayList<>();
    final Thread reader;
    volatile String contentType;
    volatile InputStream body;

    Stream(String path) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
              .header("Accept", "text/event-stream")
              .build();
      reader =
          new Thread(
              () -> {
                try {
                  HttpResponse<InputStream> response =
                      HttpClient.newHttpClient()
                          .send(request, HttpResponse.BodyHandlers.ofInputStream());
                  contentType = response.headers().firstValue("Content-Type").orElse("");
                  body = response.body();
                  BufferedReader in =
                      new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
                  String id = null;
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("id:")) {
                      id = line.substring(3).trim();
                    } else if (line.startsWith("data:")) {
                      ids.add(Long.parseLong(id));
                      events.add(JSON.readTree(line.substring(5).trim()));
                    }
                  }
                } catch (Exception e) {
                  // closed by the test
                }
              });
      reader.setDaemon(true);
      reader.start();
    }

    List<String> reasons() {
      return events.stream().map(e -> e.path("reason").asString()).toList();
    }

    @Override
    public void close() throws Exception {
      reader.interrupt();
      if (body != null) {
        body.close();
      }
    }
  }

  @Test
  void shouldStreamTheEventsOfACreateInOrderForTheDatabaseAndTheTable() throws Exception {
    Api api = new Api(port);
    String database = "sse_" + UUID.randomUUID().toString().substring(0, 6);
    String name = "streamed_" + database;
    String db = "/v1/catalogs/examples/databases/" + database;
    try (Stream all = new Stream(db + "/events?follow=true")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> all.contentType != null);
      assertThat(all.contentType).startsWith("text/event-stream");
      assertThat(
              api.sql(
                      "CREATE MATERIALIZED TABLE "
                          + name
                          + " AS SELECT order_id, price FROM examples.marketplace.orders",
                      "examples",
                      database)
                  .status())
          .isEqualTo(200);
      await().atMost(Duration.ofSeconds(90)).until(() -> all.reasons().contains("JobRunning"));
      List<String> logged = new ArrayList<>();
      api.get(db + "/materialized-tables/" + name + "/events")
          .body()
          .path("items")
          .forEach(e -> logged.add(e.path("reason").asString()));
      List<String> streamed = all.reasons();
      assertThat(streamed).isEqualTo(logged.subList(0, streamed.size()));
      assertThat(streamed).contains("SchemaRegistered", "JobRunning");
      assertThat(streamed.indexOf("SchemaRegistered")).isLessThan(streamed.indexOf("JobRunning"));
      assertThat(all.ids).isSorted().doesNotHaveDuplicates();
      assertThat(all.events)
          .allSatisfy(e -> assertThat(e.path("table").asString()).isEqualTo(name));

      // The table's own stream replays its log from the start, then goes on; after= skips.
      try (Stream one = new Stream(db + "/materialized-tables/" + name + "/events?follow=true");
          Stream later =
              new Stream(
                  db
                      + "/materialized-tables/"
                      + name
                      + "/events?follow=true&after="
                      + all.ids.get(0))) {
        await().atMost(Duration.ofSeconds(10)).until(() -> one.events.size() >= streamed.size());
        assertThat(one.reasons().subList(0, streamed.size())).isEqualTo(streamed);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> later.events.size() >= streamed.size() - 1);
        assertThat(later.ids).allSatisfy(id -> assertThat(id).isGreaterThan(all.ids.get(0)));
      }
      api.sql("ALTER MATERIALIZED TABLE " + name + " SUSPEND", "examples", database);
      await().atMost(Duration.ofSeconds(60)).until(() -> all.reasons().contains("Suspended"));
      api.sql("DROP MATERIALIZED TABLE " + name, "examples", database);
    }
  }

  @Test
  void shouldAnswerTheLineageAsJsonMermaidAndDot() {
    Api api = new Api(port);
    String database = "lin_" + UUID.randomUUID().toString().substring(0, 6);
    String upstream = "up_" + database;
    String downstream = "down_" + database;
    assertThat(
            api.sql(
                    "CREATE MATERIALIZED TABLE "
                        + upstream
                        + " AS SELECT order_id, price FROM examples.marketplace.orders;"
                        + " CREATE MATERIALIZED TABLE "
                        + downstream
                        + " AS SELECT order_id FROM "
                        + upstream
                        + " WHERE price > 5",
                    "examples",
                    database)
                .status())
        .isEqualTo(200);
    String q = "examples." + database + ".";
    JsonNode graph = api.get("/v1/lineage?catalog=examples&database=" + database).body();
    List<String> edges = new ArrayList<>();
    graph
        .path("edges")
        .forEach(e -> edges.add(e.path("from").asString() + " -> " + e.path("to").asString()));
    assertThat(edges)
        .containsExactly(
            q + upstream + " -> " + q + downstream,
            "examples.marketplace.orders -> " + q + upstream);
    List<String> nodes = new ArrayList<>();
    graph
        .path("nodes")
        .forEach(n -> nodes.add(n.path("id").asString() + " " + n.path("type").asString()));
    assertThat(nodes)
        .containsExactly(
            q + downstream + " MATERIALIZED_TABLE",
            q + upstream + " MATERIALIZED_TABLE",
            "examples.marketplace.orders SOURCE_TABLE");

    Api.Answer mermaid =
        api.get("/v1/lineage?catalog=examples&database=" + database + "&format=mermaid");
    assertThat(mermaid.contentType()).startsWith("text/vnd.mermaid");
    assertThat(mermaid.text())
        .startsWith("flowchart LR\n")
        .contains("n2[(\"examples.marketplace.orders\")]")
        .contains("n2 --> n1")
        .contains("n1 --> n0");
    Api.Answer dot = api.get("/v1/lineage?catalog=examples&database=" + database + "&format=dot");
    assertThat(dot.text()).contains("\"" + q + upstream + "\" -> \"" + q + downstream + "\";");
    assertThat(api.get("/v1/lineage?format=svg").status()).isEqualTo(400);

    // SHOW MATERIALIZED TABLE reads the same graph.
    JsonNode rows =
        api.sql("SHOW MATERIALIZED TABLE " + upstream, "examples", database)
            .body()
            .path("results")
            .path(0)
            .path("rows");
    assertThat(rows.toString())
        .isEqualTo(
            "[[\"reads\",\"examples.marketplace.orders\",\"SOURCE_TABLE\"],[\"read_by\",\""
                + q
                + downstream
                + "\",\"MATERIALIZED_TABLE\"]]");
    api.dropMaterializedTables("examples", database);
  }
}
