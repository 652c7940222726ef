package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * FULL refreshes with two service processes on one database (two Quartz instances in one cluster,
 * two reconcilers), one of them killed with SIGKILL while a refresh's job runs: every slot of the
 * schedule is refreshed at most once, never two refreshes of the table at once, one Flink job per
 * refresh attempt, and the refresh the killed process was following is finished by the other one
 * without a second job.
 */
class RefreshFaultsIT {

  static final String DATABASE = "refresh_faults";
  static final HttpClient http = HttpClient.newHttpClient();

  static ServiceProcess first;
  static ServiceProcess second;

  @BeforeAll
  static void startServices() throws Exception {
    LocalStack stack = LocalStack.get();
    Map<String, String> env =
        stack.environment("refresh_" + UUID.randomUUID().toString().substring(0, 8));
    env.put("TRIBUTARY_RECONCILER_RESYNC", "5s");
    env.put("TRIBUTARY_RECONCILER_LEASE", "5s");
    first = new ServiceProcess(env, Path.of("target", "faults", "refresh-1"));
    second = new ServiceProcess(env, Path.of("target", "faults", "refresh-2"));
    first.start();
    second.start();
  }

  @AfterAll
  static void stopServices() throws Exception {
    for (ServiceProcess service : new ServiceProcess[] {first, second}) {
      if (service != null) {
        service.close();
      }
    }
  }

  @Test
  void shouldRunEachSlotOnceAcrossReplicasAndFinishARefreshWhoseFollowerWasKilled()
      throws Exception {
    String kafka = LocalStack.get().kafkaBootstrapServers();
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    String topic = "refresh-faults-" + suffix;
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    Map<Integer, Long> expected = new TreeMap<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = 0; i < 2000; i++) {
        int customer = i % 13;
        expected.merge(customer, 1L, Long::sum);
        producer.send(
            new ProducerRecord<>(
                topic,
                String.valueOf(customer),
                JsonMapper.shared()
                    .writeValueAsString(Map.of("order_id", "o" + i, "customer_id", customer))));
      }
    }
    Api api = first.api();
    ok(
        api,
        "CREATE TABLE orders_"
            + suffix
            + " (order_id STRING, customer_id INT) WITH ('connector' = 'kafka', 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'format' = 'json')");
    String table = "counts_" + suffix;
    ok(
        api,
        "CREATE MATERIALIZED TABLE "
            + table
            + " FRESHNESS = INTERVAL '5' SECOND REFRESH MODE = FULL AS SELECT customer_id,"
            + " count(*) AS n FROM orders_"
            + suffix
            + " GROUP BY customer_id");
    String path = "/v1/catalogs/examples/databases/" + DATABASE + "/materialized-tables/" + table;

    // Let both replicas serve the schedule for a while.
    Thread.sleep(25_000);

    // Kill the first replica while a refresh's job runs; the second must finish that refresh.
    JsonNode running =
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> second.api().get(path + "/refreshes?limit=1").body().path("items").path(0),
                r ->
                    "RUNNING".equals(r.path("state").asString())
                        && r.path("submitted").asBoolean());
    first.kill();
    long number = running.path("number").asLong();
    JsonNode finished =
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(300))
            .until(
                () -> refresh(second.api(), path, number),
                r -> !r.path("state").asString().matches("QUEUED|RUNNING"));
    assertThat(finished.path("state").asString()).as(finished.toString()).isEqualTo("SUCCEEDED");
    assertThat(finished.path("jobId").asString()).isEqualTo(running.path("jobId").asString());

    Thread.sleep(12_000); // more slots, served by the second replica alone
    List<JsonNode> refreshes = new ArrayList<>();
    second.api().get(path + "/refreshes?limit=500").body().path("items").forEach(refreshes::add);

    // Each slot once; never two at once; one job per refresh attempt.
    Set<String> slots = new HashSet<>();
    for (JsonNode r : refreshes) {
      assertThat(slots.add(r.path("scheduledAt").asString())).as("slot refreshed twice").isTrue();
    }
    List<JsonNode> ended =
        refreshes.stream()
            .filter(r -> !r.path("endedAt").isNull() && !r.path("startedAt").isNull())
            .sorted((a, b) -> Long.compare(a.path("number").asLong(), b.path("number").asLong()))
            .toList();
    for (int i = 1; i < ended.size(); i++) {
      Instant previousEnd = Instant.parse(ended.get(i - 1).path("endedAt").asString());
      Instant start = Instant.parse(ended.get(i).path("startedAt").asString());
      assertThat(start).as("refresh %s overlaps the one before", ended.get(i)).isAfter(previousEnd);
    }
    Map<String, Integer> jobsPerRefresh = new TreeMap<>();
    JsonNode overview = get(LocalStack.get().flinkRestUrl() + "/jobs/overview");
    String id = second.api().get(path).body().path("metadata").path("uid").asString();
    for (JsonNode job : overview.path("jobs")) {
      String name = job.path("name").asString();
      if (name.startsWith("tributary-refresh-" + id + "-")) {
        jobsPerRefresh.merge(name, 1, Integer::sum);
      }
    }
    assertThat(jobsPerRefresh).isNotEmpty();
    assertThat(jobsPerRefresh.values()).as("jobs per refresh attempt").containsOnly(1);
    long succeeded =
        refreshes.stream().filter(r -> "SUCCEEDED".equals(r.path("state").asString())).count();
    System.out.printf(
        "FAULTS refresh with two replicas, one killed: %d refreshes recorded, %d succeeded, %d"
            + " slots, %d refresh jobs, max jobs per attempt %d%n",
        refreshes.size(),
        succeeded,
        slots.size(),
        jobsPerRefresh.size(),
        jobsPerRefresh.values().stream().mapToInt(Integer::intValue).max().orElse(0));

    Map<Integer, Long> content = new TreeMap<>();
    String tableTopic =
        second.api().get(path).body().path("status").path("topic").path("name").asString();
    TopicReader.compacted(kafka, tableTopic)
        .values()
        .forEach(
            v -> {
              JsonNode row = JsonMapper.shared().readTree(v);
              content.put(row.path("customer_id").asInt(), row.path("n").asLong());
            });
    assertThat(content).isEqualTo(expected);

    // Downtime: no replica runs for four slots. The one that comes back does not replay them: at
    // most one run for the missed slots (none when the refresh under way at the kill is still
    // active then: never two at once), then the schedule's own slots.
    second.kill();
    Instant down = Instant.now();
    Thread.sleep(21_000);
    Instant restart = Instant.now();
    first.start();
    Instant ready = Instant.now();
    Api back = first.api();
    Thread.sleep(15_000);
    List<JsonNode> since = after(back, path, down);
    long catchUps =
        since.stream().filter(r -> "CATCH_UP".equals(r.path("trigger").asString())).count();
    long forDowntime =
        since.stream()
            .filter(r -> Instant.parse(r.path("scheduledAt").asString()).isBefore(ready))
            .count();
    System.out.printf(
        "FAULTS refresh after 21 s with no replica (4 slots missed): %d refreshes in the 15 s"
            + " after, %d catch-up, %d for slots before the replica was ready%n",
        since.size(), catchUps, forDowntime);
    assertThat(since).isNotEmpty();
    assertThat(forDowntime).as("runs for the missed slots").isLessThanOrEqualTo(1);
    for (JsonNode r : since) {
      assertThat(Instant.parse(r.path("scheduledAt").asString()))
          .as("no missed slot replayed")
          .isAfterOrEqualTo(restart.minusSeconds(5));
    }
    assertThat(since.size()).as("no burst").isLessThanOrEqualTo(15 / 5 + 2);
    ok(back, "DROP MATERIALIZED TABLE " + table);
  }

  /** Refreshes requested after {@code at}, oldest first. */
  private static List<JsonNode> after(Api api, String path, Instant at) {
    List<JsonNode> found = new ArrayList<>();
    for (JsonNode r : api.get(path + "/refreshes?limit=500").body().path("items")) {
      if (Instant.parse(r.path("requestedAt").asString()).isAfter(at)) {
        found.add(0, r);
      }
    }
    return found;
  }

  private static JsonNode refresh(Api api, String path, long number) {
    for (JsonNode r : api.get(path + "/refreshes?limit=500").body().path("items")) {
      if (r.path("number").asLong() == number) {
        return r;
      }
    }
    throw new AssertionError("No refresh #" + number);
  }

  private static void ok(Api api, String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return JsonMapper.shared().readTree(response.body());
  }
}
