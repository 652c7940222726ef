package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Window table functions, the Flink 2.x way to window: TUMBLE and HOP aggregations over the example
 * orders reach RUNNING (the query's table is found in its parse tree), and every window they emit
 * counts exactly the source orders whose event time falls in it.
 */
@TributaryIT
class WindowAggregationIT {

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", "marketplace");
  }

  @Test
  void shouldCountEachTumblingAndHoppingWindowExactly() {
    api.ok(
        "CREATE MATERIALIZED TABLE orders_per_10s FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " window_start, window_end, COUNT(*) AS orders FROM TABLE(TUMBLE(TABLE orders,"
            + " DESCRIPTOR(event_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end");
    api.ok(
        "CREATE MATERIALIZED TABLE orders_per_20s_hop FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " window_start, window_end, COUNT(*) AS orders FROM TABLE(HOP(TABLE"
            + " examples.marketplace.orders, DESCRIPTOR(event_time), INTERVAL '10' SECOND,"
            + " INTERVAL '20' SECOND)) GROUP BY window_start, window_end");
    api.awaitPhase("orders_per_10s", "RUNNING");
    api.awaitPhase("orders_per_20s_hop", "RUNNING");
    // The columns Flink inferred for the query are the table's: DESCRIBE shows them.
    JsonNode describe = api.ok("DESCRIBE orders_per_10s").path(0).path("rows");
    assertThat(describe.valueStream().map(r -> r.path(0).asString()))
        .containsExactly("window_start", "window_end", "orders");
    assertThat(describe.path(2).path(1).asString()).isEqualTo("BIGINT");
    String kafka = LocalStack.get().kafkaBootstrapServers();

    for (String table : List.of("orders_per_10s", "orders_per_20s_hop")) {
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> {
                List<String> windows =
                    TopicReader.values(
                        kafka, table, Integer.MAX_VALUE, Duration.ofSeconds(3), true);
                assertThat(windows).as(table).hasSizeGreaterThanOrEqualTo(2);
                List<LocalDateTime> events =
                    TopicReader.values(
                            kafka,
                            ExampleCatalog.topic("orders"),
                            Integer.MAX_VALUE,
                            Duration.ofSeconds(5),
                            false)
                        .stream()
                        .map(o -> time(JsonMapper.shared().readTree(o).path("event_time")))
                        .toList();
                for (String w : windows) {
                  JsonNode window = JsonMapper.shared().readTree(w);
                  LocalDateTime start = time(window.path("window_start"));
                  LocalDateTime end = time(window.path("window_end"));
                  long expected =
                      events.stream().filter(t -> !t.isBefore(start) && t.isBefore(end)).count();
                  assertThat(window.path("orders").asLong())
                      .as(table + " " + w)
                      .isEqualTo(expected);
                }
              });
    }
  }

  private static LocalDateTime time(JsonNode value) {
    return LocalDateTime.parse(value.asString().replace(' ', 'T'));
  }
}
