package dev.tributary.pool;

import static dev.tributary.pool.PoolClusters.TABLES;
import static dev.tributary.pool.PoolClusters.dropTables;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.FlinkCluster;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TopicReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A compute pool whose cluster is killed while the other runs on (in {@code -Pfaults}): the second
 * pool is a Flink cluster of separate processes ({@link FlinkCluster}: a JobManager, two
 * TaskManagers and a SQL Gateway, checkpoints in S3), whose JobManager is SIGKILLed and started
 * again without high availability, so its jobs are gone when it returns. The tables there write
 * {@code raw} values: the cluster has only Flink's own formats.
 */
@TributaryIT
class ComputePoolKillFaultsIT {

  static FlinkCluster cluster;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  @BeforeAll
  static void startCluster() throws Exception {
    Path dir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target", "pool-kill").toAbsolutePath()), "run-");
    cluster = FlinkCluster.start(dir.resolve("flink"));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Only the killed pool's table waits (DEGRADED, naming the pool, never FAILED) while the default
   * pool's tables run on and take new ones; when the JobManager is back, its job is submitted again
   * from the checkpoint in S3, once, and the table's topic holds every order once.
   */
  @Test
  void shouldHoldUpOnlyTheTablesOfAKilledClusterAndResubmitThemFromTheirCheckpointOnce()
      throws Exception {
    Api api = new Api(port);
    String kafka = LocalStack.get().kafkaBootstrapServers();
    try {
      Map<String, Object> spec = new LinkedHashMap<>();
      spec.put("restUrl", cluster.restUrl().toString());
      spec.put("sqlGatewayUrl", cluster.sqlGatewayUrl().toString());
      Answer put = api.put("/v1/compute-pools/killed", null, spec);
      assertThat(put.status()).as(put.text()).isEqualTo(200);
      api.ok(
          "CREATE MATERIALIZED TABLE pool_killed WITH ('compute-pool' = 'killed',"
              + " 'value.format' = 'raw') FRESHNESS = INTERVAL '1' SECOND"
              + " AS SELECT order_id FROM orders");
      api.ok(
          "CREATE MATERIALIZED TABLE pool_alive WITH ('value.format' = 'raw')"
              + " AS SELECT order_id FROM orders");
      api.awaitPhase("pool_killed", "RUNNING");
      api.awaitPhase("pool_alive", "RUNNING");
      String job = status(api, "pool_killed").path("job").path("id").asString();
      assertThat(cluster.jobState(job)).isEqualTo("RUNNING");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () ->
                  assertThat(
                          status(api, "pool_killed").path("lastCheckpoint").path("path").asString())
                      .startsWith("s3://"));
      long submitted = events(api, "pool_killed", "JobSubmitted");

      cluster.jobManager().kill();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                JsonNode status = status(api, "pool_killed");
                assertThat(status.path("phase").asString())
                    .as(status.toString())
                    .isEqualTo("DEGRADED");
                assertThat(status.path("message").asString()).contains("Compute pool killed");
              });
      api.ok("CREATE MATERIALIZED TABLE pool_new AS SELECT order_id FROM orders");
      api.awaitPhase("pool_new", "RUNNING");
      assertThat(api.phase("pool_alive")).isEqualTo("RUNNING");
      assertThat(api.phase("pool_killed")).isEqualTo("DEGRADED");

      long killedAt = System.nanoTime();
      cluster.restartJobManager();
      cluster.awaitTaskManagers(FlinkCluster.TASK_MANAGERS);
      await()
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> events(api, "pool_killed", "JobSubmitted") > submitted);
      api.awaitPhase("pool_killed", "RUNNING");
      assertThat(lastEvent(api, "pool_killed", "JobSubmitted")).contains("restoring s3://");
      String uid = api.get(TABLES + "pool_killed").body().path("metadata").path("uid").asString();
      String second = status(api, "pool_killed").path("job").path("id").asString();
      assertThat(cluster.runningJobs("tributary-" + uid)).containsExactly(second);
      assertThat(events(api, "pool_killed", "JobSubmitted")).isEqualTo(submitted + 1);
      Set<String> expected = OrderIds.source(kafka, Duration.ofSeconds(3));
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> {
                List<String> ids =
                    TopicReader.values(
                        kafka, "pool_killed", Integer.MAX_VALUE, Duration.ofSeconds(3), true);
                Set<String> seen = new HashSet<>(ids);
                assertThat(ids.size() - seen.size()).as("orders written twice").isZero();
                assertThat(seen).as("orders missing").containsAll(expected);
              });
      System.out.printf(
          "POOL JobManager SIGKILL (no HA): job %s submitted again (as %s, its fixed id) from the"
              + " checkpoint in S3, RUNNING %.1f s after the restart began; %d orders, none"
              + " missing or twice%n",
          job, second, (System.nanoTime() - killedAt) / 1e9, expected.size());
    } finally {
      if (!cluster.jobManager().isAlive()) {
        cluster.restartJobManager();
      }
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool WHERE name = 'killed'");
    }
  }

  private static JsonNode status(Api api, String name) {
    return api.get(TABLES + name).body().path("status");
  }

  private static long events(Api api, String name, String reason) {
    return api.eventMessages(name, reason).size();
  }

  private static String lastEvent(Api api, String name, String reason) {
    List<String> messages = api.eventMessages(name, reason);
    return messages.isEmpty() ? "" : messages.get(messages.size() - 1);
  }
}
