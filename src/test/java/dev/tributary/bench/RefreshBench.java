package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * A FULL refresh of a 100,000-row source through the service (ALTER ... REFRESH until the refresh
 * is SUCCEEDED: bounds, bounded batch job, tombstone scan) against the same bounded INSERT
 * submitted by hand to the gateway (session, source and sink tables, INSERT, until FINISHED), side
 * by side in one run. Both outputs are checked to hold every key.
 */
@TributaryIT
class RefreshBench {

  static final int ROWS = 100_000;
  static final int CUSTOMERS = 1_000;
  static final int RUNS = 3;
  static final String DATABASE = "bench_refresh";

  @LocalServerPort int port;
  @Autowired FlinkSql sql;
  @Autowired FlinkJobs jobs;
  @Autowired Topics topics;

  @Test
  void refreshThroughTheServiceAgainstABoundedInsertByHand() throws Exception {
    Api api = new Api(port);
    String kafka = LocalStack.get().kafkaBootstrapServers();
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    String source = "bench-refresh-orders-" + suffix;
    topics.ensure(new Topics.TopicSpec(source, 4, Map.of()));
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka,
                ProducerConfig.LINGER_MS_CONFIG,
                20),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = 0; i < ROWS; i++) {
        int customer = i % CUSTOMERS;
        producer.send(
            new ProducerRecord<>(
                source,
                String.valueOf(customer),
                "{\"order_id\":\"o"
                    + i
                    + "\",\"customer_id\":"
                    + customer
                    + ",\"price\":"
                    + (i % 97)
                    + "}"));
      }
    }
    String columns = "order_id STRING, customer_id INT, price DOUBLE";
    String sourceDdl =
        "CREATE TABLE orders_"
            + suffix
            + " ("
            + columns
            + ") WITH ('connector' = 'kafka', 'topic' = '"
            + source
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')";
    assertThat(api.sql(sourceDdl, "examples", DATABASE).status()).isEqualTo(200);
    String query =
        "SELECT customer_id, count(*) AS n, sum(price) AS total FROM orders_"
            + suffix
            + " GROUP BY customer_id";
    String table = "bench_spend_" + suffix;
    Api.Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE " + table + " FRESHNESS = INTERVAL '1' DAY AS " + query,
            "examples",
            DATABASE);
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    String path = "/v1/catalogs/examples/databases/" + DATABASE + "/materialized-tables/" + table;
    api.awaitPhase(DATABASE, table, "RUNNING");

    // By hand, the sink topic exists once as the service's does (created with the table).
    String rawTopic = "bench-refresh-raw-" + suffix;
    topics.ensure(new Topics.TopicSpec(rawTopic, 6, Map.of("cleanup.policy", "compact")));
    List<Long> service = new ArrayList<>();
    List<Long> serviceJob = new ArrayList<>();
    List<Long> byHand = new ArrayList<>();
    for (int run = -1; run < RUNS; run++) { // run -1 warms both paths up and is not counted
      long start = System.nanoTime();
      assertThat(
              api.sql("ALTER MATERIALIZED TABLE " + table + " REFRESH", "examples", DATABASE)
                  .status())
          .isEqualTo(200);
      JsonNode done =
          await()
              .atMost(Duration.ofMinutes(3))
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> api.get(path + "/refreshes?limit=1").body().path("items").path(0),
                  r -> r.path("state").asString().matches("SUCCEEDED|FAILED"));
      long viaService = (System.nanoTime() - start) / 1_000_000;
      assertThat(done.path("state").asString()).as(done.toString()).isEqualTo("SUCCEEDED");

      start = System.nanoTime();
      String job = submitByHand(sourceDdl, query, rawTopic, kafka);
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () ->
                  jobs.overview().stream()
                      .anyMatch(
                          j -> j.id().equals(job) && j.state() == FlinkJobs.JobState.FINISHED));
      long viaGateway = (System.nanoTime() - start) / 1_000_000;
      assertThat(TopicReader.compacted(kafka, rawTopic)).hasSize(CUSTOMERS);
      if (run >= 0) {
        service.add(viaService);
        serviceJob.add(
            Duration.between(
                    Instant.parse(done.path("startedAt").asString()),
                    Instant.parse(done.path("endedAt").asString()))
                .toMillis());
        byHand.add(viaGateway);
      }
    }
    String tableTopic = api.get(path).body().path("status").path("topic").path("name").asString();
    assertThat(TopicReader.compacted(kafka, tableTopic)).hasSize(CUSTOMERS);
    double s = service.stream().mapToLong(Long::longValue).average().orElse(0);
    double h = byHand.stream().mapToLong(Long::longValue).average().orElse(0);
    System.out.printf(
        "BENCH full-refresh of %d rows into %d keys: service (REFRESH to SUCCEEDED) %s ms (mean"
            + " %.0f; bounds to end as recorded %s ms), bounded INSERT by hand (session to"
            + " FINISHED) %s ms (mean %.0f), overhead %.1f%%%n",
        ROWS, CUSTOMERS, service, s, serviceJob, byHand, h, 100 * (s - h) / h);
    // Where the last refresh spent its time, from the table's events.
    Map<String, Instant> at = new LinkedHashMap<>();
    String succeeded = "";
    for (JsonNode e : api.get(path + "/events").body().path("items")) {
      at.put(e.path("reason").asString(), Instant.parse(e.path("at").asString()));
      if (e.path("reason").asString().equals("RefreshSucceeded")) {
        succeeded = e.path("message").asString();
      }
    }
    System.out.println("BENCH full-refresh last event: " + succeeded);
    System.out.printf(
        "BENCH full-refresh last run: bounds to submitted %d ms, submitted to succeeded (job, then"
            + " tombstone scan) %d ms%n",
        Duration.between(at.get("RefreshStarted"), at.get("RefreshSubmitted")).toMillis(),
        Duration.between(at.get("RefreshSubmitted"), at.get("RefreshSucceeded")).toMillis());
    api.sql("DROP MATERIALIZED TABLE " + table, "examples", DATABASE);
  }

  /**
   * What a user would run by hand: a batch session, the source bounded at its latest offsets, an
   * exactly-once upsert sink (as the service's, which also frames records for the registry), the
   * INSERT.
   */
  private String submitByHand(String sourceDdl, String query, String sink, String kafka) {
    FlinkSql.Session session =
        sql.openSession(
            "bench-raw",
            Map.of(
                "execution.runtime-mode", "batch",
                "table.builtin-catalog-name", "examples",
                "table.builtin-database-name", DATABASE));
    try {
      sql.execute(
          session,
          sourceDdl
              .replace("CREATE TABLE", "CREATE TEMPORARY TABLE")
              .replace(
                  "'format' = 'json')",
                  "'format' = 'json', 'scan.bounded.mode' = 'latest-offset')"));
      sql.execute(
          session,
          "CREATE TEMPORARY TABLE raw_sink (customer_id INT NOT NULL, n BIGINT, total DOUBLE,"
              + " PRIMARY KEY (customer_id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',"
              + " 'topic' = '"
              + sink
              + "', 'properties.bootstrap.servers' = '"
              + kafka
              + "', 'key.format' = 'json', 'value.format' = 'json',"
              + " 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '"
              + sink
              + "-"
              + System.nanoTime()
              + "')");
      return sql.execute(session, "INSERT INTO raw_sink " + query).jobId().orElseThrow();
    } finally {
      sql.closeSession(session);
    }
  }
}
