package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * An INSERT ONCE backfill with the service killed (SIGKILL) right after its job was submitted, and
 * restarted twice: it runs to its end once, its rows are in the table once, and a restart after it
 * is done neither runs it again nor restarts the table's other flow.
 */
class PipelineFaultsIT {

  static final String DATABASE = "pipeline_faults";
  static final int HISTORY = 300;

  static ServiceProcess service;

  @BeforeAll
  static void startService() throws Exception {
    Map<String, String> env =
        LocalStack.get().environment("pipeline_" + UUID.randomUUID().toString().substring(0, 8));
    env.put("TRIBUTARY_RECONCILER_RESYNC", "5s");
    env.put("TRIBUTARY_RECONCILER_LEASE", "5s");
    service = new ServiceProcess(env, Path.of("target", "faults", "pipeline"));
    service.start();
  }

  @AfterAll
  static void stopService() throws Exception {
    if (service != null) {
      service.close();
    }
  }

  @Test
  void shouldRunABackfillExactlyOnceAcrossKilledAndRestartedServices() throws Exception {
    String kafka = LocalStack.get().kafkaBootstrapServers();
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    String live = source(kafka, "live-" + suffix, 5);
    String history = source(kafka, "history-" + suffix, HISTORY);
    Api api = service.api();
    String t = "kept_" + suffix;
    String backfill = "backfill_" + suffix;
    ok(
        api,
        "CREATE TABLE "
            + t
            + " (id STRING) TBLPROPERTIES ('pipelines.trigger.interval' = '1 s')"
            + " FLOW INSERT BY NAME SELECT id FROM "
            + table(live));
    String path = "/v1/catalogs/examples/databases/" + DATABASE + "/materialized-tables/" + t;
    await().atMost(Duration.ofSeconds(90)).until(() -> flowJob(api, path, t) != null);
    String liveJob = flowJob(api, path, t);
    ok(
        api,
        "CREATE FLOW "
            + backfill
            + " AS INSERT INTO ONCE "
            + t
            + " BY NAME SELECT id FROM "
            + table(history));
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> flow(api, path, backfill).path("run").path("jobId").isString());
    JsonNode atKill = flow(api, path, backfill).path("run");
    service.kill(); // the job was submitted; the process that followed it is gone

    service.start();
    Api back = service.api();
    await()
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () ->
                assertThat(flow(back, path, backfill).path("run").path("state").asString())
                    .isEqualTo("SUCCEEDED"));
    JsonNode done = flow(back, path, backfill).path("run");
    String topic = back.get(path).body().path("status").path("topic").path("name").asString();
    long fromHistory = historyRows(kafka, topic, suffix);
    System.out.printf(
        "FAULTS pipeline: service killed with the INSERT ONCE job %s submitted (state %s);"
            + " after the restart it ended %s with %d rows, %d history rows in the table (of"
            + " %d)%n",
        atKill.path("jobId").asString(),
        atKill.path("state").asString("running"),
        done.path("state").asString(),
        done.path("rows").asLong(),
        fromHistory,
        HISTORY);
    assertThat(fromHistory).isEqualTo(HISTORY);
    assertThat(done.path("rows").asLong()).isEqualTo(HISTORY);

    // Done, then more history and a restart: nothing runs again, the other flow keeps its job.
    write(kafka, "history-" + suffix, HISTORY, 50);
    service.kill();
    service.start();
    Api again = service.api();
    Thread.sleep(10_000); // two resyncs
    assertThat(flow(again, path, backfill).path("run").path("jobId").asString())
        .isEqualTo(done.path("jobId").asString());
    assertThat(historyRows(kafka, topic, suffix)).isEqualTo(HISTORY);
    assertThat(flowJob(again, path, t)).isEqualTo(liveJob);
    ok(again, "DROP TABLE " + t);
  }

  private static JsonNode flow(Api api, String path, String name) {
    for (JsonNode f : api.get(path + "/flows").body().path("items")) {
      if (f.path("metadata").path("name").asString().equals(name)) {
        return f.path("status");
      }
    }
    return JsonMapper.shared().missingNode();
  }

  private static String flowJob(Api api, String path, String name) {
    return flow(api, path, name).path("job").path("id").asString(null);
  }

  private static long historyRows(String kafka, String topic, String suffix) {
    return TopicReader.values(kafka, topic, 10_000, Duration.ofSeconds(10), true).stream()
        .filter(v -> v.contains("\"history-" + suffix + "-"))
        .count();
  }

  private static String table(String topic) {
    return topic.replace('-', '_') + "_src";
  }

  /** A topic of {@code count} JSON rows and its source table (named after it). */
  private static String source(String kafka, String topic, int count) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    write(kafka, topic, 0, count);
    ok(
        service.api(),
        "CREATE TABLE "
            + table(topic)
            + " (id STRING) WITH ('connector' = 'kafka', 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')");
    return topic;
  }

  private static void write(String kafka, String topic, int from, int count) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = from; i < from + count; i++) {
        producer.send(
            new ProducerRecord<>(
                topic,
                null,
                JsonMapper.shared().writeValueAsString(Map.of("id", topic + "-" + i))));
      }
    }
  }

  private static void ok(Api api, String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }
}
