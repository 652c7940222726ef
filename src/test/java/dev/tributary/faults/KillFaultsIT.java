package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * SIGKILL of the service process at random moments of a table's life (create, suspend, resume,
 * evolve, drop), then a new process on the same database: every table must converge with exactly
 * one job, leave nothing behind when dropped, and hold each source row exactly once. The service
 * runs as its own JVM on the shared local stack. {@code ./mvnw verify} runs 2 rounds; {@code ./mvnw
 * -Pfaults verify} runs 50 and prints the figures.
 */
class KillFaultsIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";
  static final List<String> STEPS = List.of("create", "suspend", "resume", "evolve", "drop");
  static final int ROUNDS = Integer.getInteger("faults.rounds", 2);

  static ServiceProcess service;
  static Api api;
  static Admin admin;
  static final HttpClient http = HttpClient.newHttpClient();
  final Random random = new Random(Long.getLong("faults.seed", System.nanoTime()));
  final List<Long> convergeMillis = new ArrayList<>();

  @BeforeAll
  static void startService() throws Exception {
    LocalStack stack = LocalStack.get();
    Map<String, String> env =
        stack.environment("faults_" + UUID.randomUUID().toString().substring(0, 8));
    env.put("TRIBUTARY_RECONCILER_RESYNC", "5s");
    env.put(
        "TRIBUTARY_RECONCILER_READINESS_WINDOW", "10s"); // an evolution is done 10 s after RUNNING
    service = new ServiceProcess(env, Path.of("target", "faults"));
    service.start();
    api = service.api();
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrapServers());
    admin = Admin.create(props);
  }

  @AfterAll
  static void stopService() throws Exception {
    if (service != null) {
      service.close();
    }
    if (admin != null) {
      admin.close();
    }
  }

  @Test
  void shouldConvergeWithOneOfEverythingAndEveryRowOnceWhenKilledAtRandomMoments()
      throws Exception {
    Counts counts = new Counts();
    for (int round = 0; round < ROUNDS; round++) {
      String table = "killed_" + round + "_" + UUID.randomUUID().toString().substring(0, 6);
      String killAt = STEPS.get(random.nextInt(STEPS.size()));
      long delay = random.nextInt(1500);
      lifecycle(table, killAt, delay, counts);
      System.out.printf(
          "FAULTS after round %d: duplicate jobs %d, orphans %d/%d/%d, not converged %d, rows"
              + " duplicated %d, missing %d%n",
          round + 1,
          counts.duplicateJobs,
          counts.orphanJobs,
          counts.orphanTopics,
          counts.orphanSubjects,
          counts.notConverged,
          counts.duplicatedRows,
          counts.missingRows);
    }
    System.out.printf(
        "FAULTS kill-at-random: %d rounds, %d SIGKILLs; duplicate jobs %d, orphan jobs %d, orphan"
            + " topics %d, orphan subjects %d, tables not converged %d, rows duplicated %d, rows"
            + " missing %d; converge after restart mean %d ms, max %d ms%n",
        ROUNDS,
        counts.kills,
        counts.duplicateJobs,
        counts.orphanJobs,
        counts.orphanTopics,
        counts.orphanSubjects,
        counts.notConverged,
        counts.duplicatedRows,
        counts.missingRows,
        (long) convergeMillis.stream().mapToLong(Long::longValue).average().orElse(0),
        convergeMillis.stream().mapToLong(Long::longValue).max().orElse(0));
    assertThat(counts.kills).isEqualTo(ROUNDS);
    assertThat(counts.duplicateJobs).as("duplicate jobs").isZero();
    assertThat(counts.orphanJobs).as("orphan jobs").isZero();
    assertThat(counts.orphanTopics).as("orphan topics").isZero();
    assertThat(counts.orphanSubjects).as("orphan subjects").isZero();
    assertThat(counts.notConverged).as("tables not converged").isZero();
    assertThat(counts.duplicatedRows).as("rows duplicated").isZero();
    assertThat(counts.missingRows).as("rows missing").isZero();
  }

  /**
   * Create, suspend, resume, evolve, check the rows, drop; a SIGKILL {@code delay} ms after one.
   */
  private void lifecycle(String table, String killAt, long delay, Counts counts) throws Exception {
    step(
        "create",
        killAt,
        delay,
        counts,
        () ->
            sql(
                "CREATE MATERIALIZED TABLE "
                    + table
                    + " FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id, price FROM"
                    + " examples.marketplace.orders"),
        () -> phase(table, "RUNNING"),
        table);
    step(
        "suspend",
        killAt,
        delay,
        counts,
        () -> sql("ALTER MATERIALIZED TABLE " + table + " SUSPEND"),
        () -> phase(table, "STOPPED"),
        table);
    step(
        "resume",
        killAt,
        delay,
        counts,
        () -> sql("ALTER MATERIALIZED TABLE " + table + " RESUME"),
        () -> phase(table, "RUNNING"),
        table);
    String before = status(table).path("job").path("pipelineName").asString();
    step(
        "evolve",
        killAt,
        delay,
        counts,
        () ->
            sql(
                "ALTER MATERIALIZED TABLE "
                    + table
                    + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE order_id"
                    + " IS NOT NULL"),
        () ->
            phase(table, "RUNNING")
                && !status(table).path("job").path("pipelineName").asString().equals(before)
                && (status(table).path("evolution").isNull()
                    || status(table).path("evolution").isMissingNode()),
        table);
    // Stop with a savepoint so that every row read so far is committed, then compare.
    sql("ALTER MATERIALIZED TABLE " + table + " SUSPEND");
    await(() -> phase(table, "STOPPED"), counts, table);
    compareRows(table, counts);
    String uid = api.get(TABLES + table).body().path("metadata").path("uid").asString();
    step(
        "drop",
        killAt,
        delay,
        counts,
        () -> sql("DROP MATERIALIZED TABLE " + table),
        () -> api.get(TABLES + table).status() == 404,
        table);
    if (liveJobs(uid) > 0) {
      counts.orphanJobs += liveJobs(uid);
    }
    if (admin.listTopics().names().get().contains(table)) {
      counts.orphanTopics++;
    }
    if (subjects().stream().anyMatch(s -> s.startsWith(table + "-"))) {
      counts.orphanSubjects++;
    }
  }

  private void step(
      String name,
      String killAt,
      long delay,
      Counts counts,
      Runnable action,
      Check done,
      String table)
      throws Exception {
    action.run();
    if (name.equals(killAt)) {
      Thread.sleep(delay);
      service.kill();
      counts.kills++;
      long restarted = System.nanoTime();
      service.start();
      api = service.api();
      await(done, counts, table);
      long took = (System.nanoTime() - restarted) / 1_000_000;
      convergeMillis.add(took);
      System.out.printf(
          "FAULTS round %s: SIGKILL %d ms after %s; converged %d ms after the restart%n",
          table, delay, name, took);
      if (Boolean.getBoolean("faults.verbose")) {
        api.get(TABLES + table + "/events")
            .body()
            .path("items")
            .valueStream()
            .forEach(
                e ->
                    System.out.println(
                        "  "
                            + e.path("at").asString()
                            + " "
                            + e.path("reason").asString()
                            + " "
                            + e.path("message").asString()));
      }
    } else {
      await(done, counts, table);
    }
    String uid = api.get(TABLES + table).body().path("metadata").path("uid").asString();
    if (!uid.isEmpty() && liveJobs(uid) > 1) {
      counts.duplicateJobs += liveJobs(uid) - 1;
    }
  }

  private void await(Check done, Counts counts, String table) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      if (done.ok()) {
        return;
      }
      Thread.sleep(250);
    }
    counts.notConverged++;
    throw new AssertionError(table + " did not converge: " + api.get(TABLES + table).text());
  }

  /**
   * The source has one partition: the rows of the table, read committed, must be exactly the first
   * n source orders (as many as it holds), each once.
   */
  private void compareRows(String table, Counts counts) {
    String kafka = LocalStack.get().kafkaBootstrapServers();
    List<String> sink =
        ids(TopicReader.values(kafka, table, Integer.MAX_VALUE, Duration.ofSeconds(3), true));
    List<String> source =
        ids(
            TopicReader.values(
                kafka,
                ExampleCatalog.topic("orders"),
                Integer.MAX_VALUE,
                Duration.ofSeconds(3),
                false));
    Set<String> distinct = new HashSet<>(sink);
    counts.duplicatedRows += sink.size() - distinct.size();
    Set<String> expected =
        new HashSet<>(source.subList(0, Math.min(distinct.size(), source.size())));
    expected.removeAll(distinct);
    counts.missingRows += expected.size();
  }

  private static List<String> ids(List<String> values) {
    return values.stream()
        .map(v -> JsonMapper.shared().readTree(v).path("order_id").asString())
        .toList();
  }

  private static void sql(String statement) {
    Api.Answer answer = api.sql(statement, "examples", "marketplace");
    if (answer.status() != 200) {
      throw new AssertionError(statement + " -> " + answer.text());
    }
  }

  private static boolean phase(String table, String phase) {
    return phase.equals(api.get(TABLES + table).body().path("status").path("phase").asString());
  }

  private static JsonNode status(String table) {
    return api.get(TABLES + table).body().path("status");
  }

  private static int liveJobs(String uid) throws Exception {
    JsonNode overview = get(LocalStack.get().flinkRestUrl() + "/jobs/overview");
    Predicate<JsonNode> live =
        j -> !Set.of("FINISHED", "CANCELED", "FAILED").contains(j.path("state").asString());
    return (int)
        overview
            .path("jobs")
            .valueStream()
            .filter(j -> j.path("name").asString().startsWith("tributary-" + uid + "-"))
            .filter(live)
            .count();
  }

  private static List<String> subjects() throws Exception {
    return get(LocalStack.get().registryUrl() + "/subjects")
        .valueStream()
        .map(JsonNode::asString)
        .toList();
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return JsonMapper.shared().readTree(response.body());
  }

  /** A condition polled until it holds. */
  @FunctionalInterface
  interface Check {
    boolean ok() throws Exception;
  }

  /** What the suite found. */
  static final class Counts {
    int kills;
    int duplicateJobs;
    int orphanJobs;
    int orphanTopics;
    int orphanSubjects;
    int notConverged;
    int duplicatedRows;
    int missingRows;
  }
}
