package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.local.FlinkCluster;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TopicReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import tools.jackson.databind.JsonNode;

/**
 * The service on Flink as a team runs it ({@link FlinkCluster}: a JobManager, two TaskManagers and
 * a SQL Gateway, each its own JVM with only Flink's own jars, checkpoints and savepoints in an S3
 * store of its own process), the service as its own process too. Every table here is {@code
 * json-registry}, whose format the cluster does not have installed: the service delivers its format
 * jar through S3. Faults are real: SIGKILL of a TaskManager and of the JobManager, a restarted SQL
 * Gateway. Each prints its recovery time and the rows duplicated and missing, as a {@code
 * read_committed} reader of the table's topic counts them against the source.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFaultsIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  static FlinkCluster cluster;
  static ServiceProcess service;
  static Api api;
  static String kafka;

  @BeforeAll
  static void start() throws Exception {
    start(false);
  }

  /** A cluster (highly available or not) and a service process of its own on it. */
  static void start(boolean highAvailability) throws Exception {
    LocalStack stack = LocalStack.get();
    kafka = stack.kafkaBootstrapServers();
    Path dir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target", "cluster-faults").toAbsolutePath()), "run-");
    cluster =
        highAvailability
            ? FlinkCluster.startHighlyAvailable(dir.resolve("flink"))
            : FlinkCluster.start(dir.resolve("flink"));
    Map<String, String> env =
        stack.environment("cluster_" + UUID.randomUUID().toString().substring(0, 8), cluster);
    env.put("TRIBUTARY_RECONCILER_RESYNC", "3s");
    env.put("TRIBUTARY_RECONCILER_READINESS_WINDOW", "10s");
    service = new ServiceProcess(env, dir.resolve("service"));
    service.start();
    api = service.api();
  }

  @AfterAll
  static void stop() throws Exception {
    if (api != null) {
      api.dropMaterializedTables("examples", "marketplace");
    }
    if (service != null) {
      service.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    api = null;
    service = null;
    cluster = null;
  }

  @Test
  @Order(1)
  void shouldDeliverItsFormatAndContinueExactlyFromASavepointInS3AndDeleteItOnDrop()
      throws Exception {
    create("c_evolve", "SELECT order_id, price FROM examples.marketplace.orders");
    String first = awaitRunning("c_evolve", "");
    assertThat(s3Files("tributary/tributary/lib"))
        .anyMatch(f -> f.matches(".*tributary-flink-format-\\w+\\.jar"));
    awaitRows("c_evolve");
    JsonNode flink = api.get("/actuator/health").body().path("components").path("flink");
    assertThat(flink.path("details").path("formats").asString())
        .as(flink.toString())
        .isEqualTo("loadable");
    assertThat(flink.path("details").path("formatJar").asString())
        .startsWith("s3://tributary/tributary/lib/tributary-flink-format-");

    ok(
        "CREATE OR ALTER MATERIALIZED TABLE c_evolve FRESHNESS = INTERVAL '1' SECOND AS SELECT"
            + " order_id, price FROM examples.marketplace.orders WHERE order_id IS NOT NULL");
    awaitRunning("c_evolve", first);
    assertThat(lastEvent("c_evolve", "JobSubmitted"))
        .contains("sources start at", "savepoint offsets");
    String id = api.get(TABLES + "c_evolve").body().path("metadata").path("uid").asString();
    assertThat(s3Files("tributary/savepoints/" + id)).anyMatch(f -> f.endsWith("_metadata"));
    OrderIds.Count count = exactlyOnce("c_evolve");
    System.out.printf(
        "CLUSTER evolution from a savepoint in S3: %d source rows, %d duplicated, %d missing%n",
        count.sourceRows(), count.duplicated(), count.missing());

    // Suspend and resume: stop with a savepoint in S3, restore from it.
    String evolved = status("c_evolve").path("job").path("id").asString();
    ok("ALTER MATERIALIZED TABLE c_evolve SUSPEND");
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> api.phase("c_evolve").equals("STOPPED"));
    String savepoint = status("c_evolve").path("lastSavepoint").path("path").asString();
    assertThat(savepoint)
        .as(status("c_evolve").toString())
        .startsWith("s3://tributary/savepoints/");
    assertThat(cluster.runningJobs("tributary-" + id)).as("jobs while suspended").isEmpty();
    ok("ALTER MATERIALIZED TABLE c_evolve RESUME");
    String resumed = awaitRunning("c_evolve", evolved);
    assertThat(lastEvent("c_evolve", "JobSubmitted")).contains("restoring " + savepoint);
    assertThat(cluster.runningJobs("tributary-" + id)).containsExactly(resumed);
    OrderIds.Count afterResume = exactlyOnce("c_evolve");
    System.out.printf(
        "CLUSTER suspend and resume from a savepoint in S3: %d source rows, %d duplicated, %d"
            + " missing%n",
        afterResume.sourceRows(), afterResume.duplicated(), afterResume.missing());

    ok("DROP MATERIALIZED TABLE c_evolve");
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(api.get(TABLES + "c_evolve").status())
                    .as(api.get(TABLES + "c_evolve/events").text())
                    .isEqualTo(404));
    assertThat(s3Files("tributary/savepoints/" + id)).as("savepoints left in S3").isEmpty();
  }

  @Test
  @Order(2)
  void shouldNeitherLoseNorRepeatARowWhenATaskManagerIsKilled() throws Exception {
    create("c_tm", "SELECT order_id FROM examples.marketplace.orders");
    String job = awaitRunning("c_tm", "");
    awaitRows("c_tm");
    awaitCheckpoint("c_tm");
    String victim = cluster.taskManagerOf(job);
    long killed = System.nanoTime();
    cluster.killTaskManager(victim);
    String second = awaitRunning("c_tm", job);
    double recovered = (System.nanoTime() - killed) / 1e9;
    assertThat(cluster.taskManagerOf(second)).isNotEqualTo(victim);
    OrderIds.Count count = exactlyOnce("c_tm");
    System.out.printf(
        "CLUSTER TaskManager SIGKILL: running again on the other after %.1f s; %d source rows, %d"
            + " duplicated, %d missing%n",
        recovered, count.sourceRows(), count.duplicated(), count.missing());
    cluster.restartTaskManager(victim);
    cluster.awaitTaskManagers(FlinkCluster.TASK_MANAGERS);
  }

  @Test
  @Order(3)
  @EnabledIfSystemProperty(named = "faults.full", matches = "true")
  void shouldFinishAFullRefreshWithTheSameBoundsWhenItsTaskManagerIsKilled() throws Exception {
    String topic = "c-full-src-" + UUID.randomUUID().toString().substring(0, 6);
    int rows = 600_000;
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
      // Produce once both partitions have a leader (a first batch refused as NOT_LEADER can
      // leave an idempotent producer retrying out-of-order batches for minutes).
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                      .describeTopics(List.of(topic))
                      .allTopicNames()
                      .get()
                      .get(topic)
                      .partitions()
                      .stream()
                      .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka,
                ProducerConfig.LINGER_MS_CONFIG, 20,
                ProducerConfig.BATCH_SIZE_CONFIG, 262_144,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = 0; i < rows; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, null, "{\"order_id\": \"o" + i + "\", \"customer_id\": " + i % 13 + "}"));
      }
    }
    ok(
        "CREATE TABLE c_full_src (order_id STRING, customer_id INT) WITH ('connector' = 'kafka',"
            + " 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + kafka
            + "', 'format' = 'json')");
    // A row per source row: the refresh's sink writes while its sources read, in one transaction.
    ok(
        "CREATE MATERIALIZED TABLE c_full (PRIMARY KEY (order_id) NOT ENFORCED) WITH"
            + " ('refresh.on-create' = 'true') FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = FULL AS"
            + " SELECT order_id, customer_id FROM c_full_src");
    String tableTopic =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> status("c_full").path("topic").path("name").asString(), t -> !t.isBlank());
    // Killed while the refresh's job runs and its sink has written into an open transaction.
    JsonNode running =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> api.get(TABLES + "c_full/refreshes?limit=1").body().path("items").path(0),
                r ->
                    "RUNNING".equals(r.path("state").asString())
                        && r.path("submitted").asBoolean()
                        && "RUNNING".equals(cluster.jobState(r.path("jobId").asString()))
                        && !taskManagerOf(r.path("jobId").asString()).isBlank()
                        && written(tableTopic) > 0);
    String job = running.path("jobId").asString();
    String victim = taskManagerOf(job);
    long killed = System.nanoTime();
    cluster.killTaskManager(victim);
    long uncommitted = written(tableTopic);
    assertThat(cluster.jobState(job))
        .as("the refresh job when its TaskManager died")
        .isEqualTo("RUNNING");
    long number = running.path("number").asLong();
    JsonNode finished =
        await()
            .atMost(Duration.ofSeconds(180))
            .pollInterval(Duration.ofMillis(300))
            .until(
                () -> refresh("c_full", number),
                r -> !r.path("state").asString().matches("QUEUED|RUNNING"));
    double recovered = (System.nanoTime() - killed) / 1e9;
    assertThat(finished.path("state").asString()).as(finished.toString()).isEqualTo("SUCCEEDED");
    assertThat(finished.path("attempt").asInt())
        .as("the killed attempt was followed by another: %s", finished)
        .isGreaterThan(running.path("attempt").asInt());
    assertThat(finished.path("sourceBounds")).isEqualTo(running.path("sourceBounds"));
    assertThat(
            finished.path("sourceBounds").path(topic).path("0").asLong()
                + finished.path("sourceBounds").path(topic).path("1").asLong())
        .isEqualTo(rows);
    // A read_committed reader sees every row once per key, without waiting for the killed
    // attempt's transaction to time out (minutes): the next attempt aborted it.
    int[] keys = new int[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              keys[0] = TopicReader.compacted(kafka, tableTopic).size();
              assertThat(keys[0]).as("keys in the table's topic, read committed").isEqualTo(rows);
            });
    double readable = (System.nanoTime() - killed) / 1e9;
    System.out.printf(
        "CLUSTER TaskManager SIGKILL during a FULL refresh of %d rows (%d records written"
            + " uncommitted at the kill): refresh #%d SUCCEEDED in attempt %d %.1f s after the"
            + " kill, same bounds; all %d keys read committed %.1f s after the kill%n",
        rows, uncommitted, number, finished.path("attempt").asInt(), recovered, keys[0], readable);
    cluster.restartTaskManager(victim);
    cluster.awaitTaskManagers(FlinkCluster.TASK_MANAGERS);
    ok("DROP MATERIALIZED TABLE c_full");
  }

  /** Records in the topic, committed or not (its end offsets, read uncommitted). */
  private static long written(String topic) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      for (var p :
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
        ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
      }
      return admin
          .listOffsets(ends, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
          .all()
          .get()
          .values()
          .stream()
          .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
          .sum();
    } catch (ExecutionException e) {
      return 0; // not created yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The TaskManager that runs the job's first vertex, "" when none does (yet). */
  private static String taskManagerOf(String job) {
    try {
      return cluster.taskManagerOf(job);
    } catch (RuntimeException e) {
      return "";
    }
  }

  private static JsonNode refresh(String name, long number) {
    for (JsonNode r : api.get(TABLES + name + "/refreshes?limit=20").body().path("items")) {
      if (r.path("number").asLong() == number) {
        return r;
      }
    }
    throw new AssertionError("no refresh #" + number + " of " + name);
  }

  @Test
  @Order(4)
  @EnabledIfSystemProperty(named = "faults.full", matches = "true")
  void shouldResubmitFromTheCheckpointInS3WhenTheJobManagerIsKilledWithoutHighAvailability()
      throws Exception {
    create("c_jm", "SELECT order_id FROM examples.marketplace.orders");
    String job = awaitRunning("c_jm", "");
    awaitRows("c_jm");
    String checkpoint = awaitCheckpoint("c_jm");
    assertThat(checkpoint).startsWith("s3://tributary/checkpoints/");
    long submitted = events("c_jm", "JobSubmitted");
    long killed = System.nanoTime();
    cluster.killAndRestartJobManager();
    // The job is resubmitted under the same fixed id (the id of that submission: had the
    // JobManager recovered the job itself, Flink would refuse a second one with it).
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> events("c_jm", "JobSubmitted") > submitted);
    String second = awaitRunning("c_jm", "");
    double recovered = (System.nanoTime() - killed) / 1e9;
    assertThat(lastEvent("c_jm", "JobSubmitted")).contains("restoring s3://tributary/checkpoints/");
    String uid = api.get(TABLES + "c_jm").body().path("metadata").path("uid").asString();
    assertThat(cluster.runningJobs("tributary-" + uid))
        .as("the table's jobs running on the new JobManager")
        .containsExactly(second);
    OrderIds.Count count = exactlyOnce("c_jm");
    System.out.printf(
        "CLUSTER JobManager SIGKILL (no HA): job %s resubmitted as %s after %.1f s; %d source rows,"
            + " %d duplicated, %d missing%n",
        job, second, recovered, count.sourceRows(), count.duplicated(), count.missing());
  }

  @Test
  @Order(5)
  @EnabledIfSystemProperty(named = "faults.full", matches = "true")
  void shouldOpenNewSessionsWhenTheSqlGatewayRestarts() throws Exception {
    long restarted = System.nanoTime();
    cluster.restartSqlGateway();
    create("c_gw", "SELECT order_id FROM examples.marketplace.orders");
    awaitRunning("c_gw", "");
    awaitRows("c_gw");
    System.out.printf(
        "CLUSTER SQL Gateway restart: a new table running %.1f s after the restart began%n",
        (System.nanoTime() - restarted) / 1e9);
  }

  @Test
  @Order(6)
  @EnabledIfSystemProperty(named = "faults.full", matches = "true")
  void shouldSayItIsStaleWhileTheObjectStoreHangsAndRecoverWithEveryRowOnce() throws Exception {
    create("c_s3", "SELECT order_id FROM examples.marketplace.orders");
    awaitRunning("c_s3", "");
    awaitRows("c_s3");
    awaitCheckpoint("c_s3");
    long hung = System.nanoTime();
    cluster.s3().process().signal("STOP"); // a hung store: connections open, no answers
    boolean staleSeen;
    try {
      staleSeen =
          await()
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(500))
              .until(() -> !fresh("c_s3"), stale -> stale);
      long left = Duration.ofSeconds(30).toNanos() - (System.nanoTime() - hung);
      if (left > 0) {
        Thread.sleep(left / 1_000_000);
      }
    } finally {
      cluster.s3().process().signal("CONT");
    }
    long resumed = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> fresh("c_s3") && api.phase("c_s3").equals("RUNNING"));
    double recovered = (System.nanoTime() - resumed) / 1e9;
    OrderIds.Count count = exactlyOnce("c_s3");
    assertThat(staleSeen).as("the table said it was stale while no checkpoint completed").isTrue();
    System.out.printf(
        "CLUSTER object store hung 30 s: stale while hung, fresh and RUNNING %.1f s after it"
            + " answered again; %d source rows, %d duplicated, %d missing%n",
        recovered, count.sourceRows(), count.duplicated(), count.missing());
  }

  @Test
  @Order(7)
  @EnabledIfSystemProperty(named = "faults.full", matches = "true")
  void shouldLetTheJobManagerRecoverItsJobsWithZooKeeperHighAvailabilityAndAdoptThem()
      throws Exception {
    stop(); // this case needs a cluster with ZooKeeper: a new one, and a service on it
    start(true);
    create("c_ha", "SELECT order_id FROM examples.marketplace.orders");
    String job = awaitRunning("c_ha", "");
    awaitRows("c_ha");
    awaitCheckpoint("c_ha");
    String uid = api.get(TABLES + "c_ha").body().path("metadata").path("uid").asString();
    long submitted = events("c_ha", "JobSubmitted");
    long killed = System.nanoTime();
    cluster.killAndRestartJobManager();
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(300))
        .until(() -> cluster.runningJobs("tributary-" + uid), jobs -> jobs.equals(List.of(job)));
    double recovered = (System.nanoTime() - killed) / 1e9;
    // The table runs the job the JobManager recovered: the same id, no submission of its own.
    assertThat(awaitRunning("c_ha", "")).isEqualTo(job);
    Thread.sleep(10_000); // several reconciler passes over the recovered job
    assertThat(cluster.runningJobs("tributary-" + uid))
        .as("jobs of the table")
        .containsExactly(job);
    assertThat(events("c_ha", "JobSubmitted")).as("submissions").isEqualTo(submitted);
    assertThat(status("c_ha").path("job").path("id").asString()).isEqualTo(job);
    OrderIds.Count count = exactlyOnce("c_ha");
    System.out.printf(
        "CLUSTER JobManager SIGKILL with ZooKeeper HA: job %s recovered by the new JobManager and"
            + " running after %.1f s, adopted (no submission); %d source rows, %d duplicated, %d"
            + " missing%n",
        job, recovered, count.sourceRows(), count.duplicated(), count.missing());
  }

  private static boolean fresh(String name) {
    return api.get(TABLES + name)
        .body()
        .path("status")
        .path("refresh")
        .path("fresh")
        .asBoolean(false);
  }

  private static void create(String name, String query) {
    ok("CREATE MATERIALIZED TABLE " + name + " FRESHNESS = INTERVAL '1' SECOND AS " + query);
  }

  private static void ok(String statement) {
    Answer answer = api.sql(statement, "examples", "marketplace");
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }

  private static JsonNode status(String name) {
    return api.get(TABLES + name).body().path("status");
  }

  /** Waits until the table runs a job other than {@code previous}; returns its id. */
  private static String awaitRunning(String name, String previous) {
    String[] job = new String[1];
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () -> {
              JsonNode table = api.get(TABLES + name).body();
              assertThat(table.path("status").path("phase").asString())
                  .as(table.toString())
                  .isEqualTo("RUNNING");
              job[0] = table.path("status").path("job").path("id").asString();
              assertThat(job[0]).isNotBlank().isNotEqualTo(previous);
            });
    return job[0];
  }

  private static void awaitRows(String topic) {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> TopicReader.values(kafka, topic, 5, Duration.ofSeconds(2), true).size() >= 5);
  }

  /** Waits until the service has recorded a checkpoint of the table's job; returns its path. */
  private static String awaitCheckpoint(String name) {
    String[] path = new String[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              path[0] = status(name).path("lastCheckpoint").path("path").asString();
              assertThat(path[0]).as(status(name).toString()).isNotBlank();
            });
    return path[0];
  }

  private static OrderIds.Count exactlyOnce(String topic) {
    return OrderIds.awaitExactlyOnce(kafka, topic);
  }

  private static long events(String name, String reason) {
    return api.eventMessages(name, reason).size();
  }

  private static String lastEvent(String name, String reason) {
    List<String> messages = api.eventMessages(name, reason);
    return messages.isEmpty() ? "" : messages.get(messages.size() - 1);
  }

  /**
   * Every file under the prefix in the S3 store (read on its disk), relative to the bucket root.
   */
  private static List<String> s3Files(String prefix) throws IOException {
    Path root = cluster.s3Data();
    Path dir = root.resolve(prefix);
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).toList();
    }
  }
}
