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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

  @Test
  void shouldKeyAnAggregationGroupedByExpressionsAndCountEachKeyExactly() {
    // Every grouping expression is selected: Flink's key is (d, product_id), in both modes.
    String query =
        " AS SELECT CAST(event_time AS DATE) AS d, product_id, COUNT(*) AS n FROM orders"
            + " GROUP BY CAST(event_time AS DATE), product_id";
    api.ok("CREATE MATERIALIZED TABLE daily FRESHNESS = INTERVAL '1' SECOND" + query);
    JsonNode full =
        api.ok(
            "CREATE MATERIALIZED TABLE daily_full FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE ="
                + " FULL"
                + query);
    assertThat(full.path(0).path("outcome").asString()).isEqualTo("CREATED");
    // Grouping by an expression that is not selected: refused, naming what to select.
    Api.Answer keyless =
        api.sql(
            "CREATE MATERIALIZED TABLE daily_keyless AS SELECT product_id, COUNT(*) AS n FROM"
                + " orders GROUP BY CAST(event_time AS DATE), product_id",
            "examples",
            "marketplace");
    assertThat(keyless.status()).as(keyless.text()).isEqualTo(400);
    assertThat(keyless.body().path("detail").asString())
        .contains("groups by CAST(event_time AS DATE) without selecting it");
    api.awaitPhase("daily", "RUNNING");
    JsonNode status = api.get(Api.EXAMPLE_TABLES + "daily").body().path("status");
    assertThat(status.path("topic").path("changelogMode").asString()).isEqualTo("upsert");
    assertThat(api.ok("SHOW CREATE MATERIALIZED TABLE daily").toString())
        .contains("PRIMARY KEY (`d`, `product_id`)");

    String kafka = LocalStack.get().kafkaBootstrapServers();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              // Source before and after the table's topic: each key's count lies between.
              Map<String, Long> before = dailyCounts(kafka);
              // Longer than the table takes to commit what it read (freshness 1 s).
              Thread.sleep(5000);
              Map<String, String> table = TopicReader.compacted(kafka, "daily");
              Map<String, Long> after = dailyCounts(kafka);
              assertThat(table).isNotEmpty();
              long matched = 0;
              for (String value : table.values()) {
                JsonNode row = JsonMapper.shared().readTree(value);
                String key = row.path("d").asString() + "/" + row.path("product_id").asString();
                long n = row.path("n").asLong();
                assertThat(n).as(key).isLessThanOrEqualTo(after.getOrDefault(key, 0L));
                if (n >= before.getOrDefault(key, 0L)) {
                  matched++;
                }
              }
              assertThat(table.keySet()).allSatisfy(k -> assertThat(k).contains("product_id"));
              assertThat(matched).as("keys caught up with the source").isEqualTo(table.size());
              assertThat(table.size()).isEqualTo(before.size());
            });
  }

  private static Map<String, Long> dailyCounts(String kafka) {
    Map<String, Long> counts = new HashMap<>();
    for (JsonNode order : ExampleCatalog.orders(kafka, Duration.ofSeconds(3))) {
      String day = order.path("event_time").asString().substring(0, 10);
      counts.merge(day + "/" + order.path("product_id").asString(), 1L, Long::sum);
    }
    return counts;
  }

  private static LocalDateTime time(JsonNode value) {
    return LocalDateTime.parse(value.asString().replace(' ', 'T'));
  }
}
