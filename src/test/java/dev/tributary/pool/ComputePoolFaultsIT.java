package dev.tributary.pool;

import static dev.tributary.pool.PoolClusters.TABLES;
import static dev.tributary.pool.PoolClusters.dropTables;
import static dev.tributary.pool.PoolClusters.jobId;
import static dev.tributary.pool.PoolClusters.liveJobsNamedFor;
import static dev.tributary.pool.PoolClusters.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalFlink;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TcpProxy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A compute pool's cluster cut off while the other runs on (in {@code -Pfaults}): a second real
 * Flink cluster behind TCP proxies, which the test cuts and restores.
 */
@TributaryIT
class ComputePoolFaultsIT {

  static LocalFlink blue;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  @BeforeAll
  static void startSecondCluster() throws Exception {
    blue = LocalStack.get().startAnotherFlink("flink-cut");
  }

  @AfterAll
  static void stopSecondCluster() throws Exception {
    if (blue != null) {
      blue.close();
    }
  }

  /**
   * The second cluster cut off behind proxies, its job running on: only its table waits (DEGRADED,
   * naming the pool, never FAILED), the default pool's tables run on and take new ones, and when
   * the cluster answers again its job is adopted, not submitted twice.
   */
  @Test
  void shouldHoldUpOnlyTheTablesOfAPoolThatIsCutOffAndAdoptTheirJobWhenItReturns()
      throws Exception {
    Api api = new Api(port);
    TcpProxy rest = new TcpProxy(blue.restUrl().getPort());
    TcpProxy gateway = new TcpProxy(blue.sqlGatewayUrl().getPort());
    try {
      Map<String, Object> spec = new LinkedHashMap<>();
      spec.put("restUrl", "http://127.0.0.1:" + rest.port());
      spec.put("sqlGatewayUrl", "http://127.0.0.1:" + gateway.port());
      Answer put = api.put("/v1/compute-pools/cut", null, spec);
      assertThat(put.status()).as(put.text()).isEqualTo(200);
      api.ok(
          "CREATE MATERIALIZED TABLE pool_cut WITH ('compute-pool' = 'cut')"
              + " AS SELECT order_id, price FROM orders");
      api.ok("CREATE MATERIALIZED TABLE pool_stay AS SELECT order_id, price FROM orders");
      api.awaitPhase("pool_cut", "RUNNING");
      api.awaitPhase("pool_stay", "RUNNING");
      String job = jobId(api, "pool_cut");

      rest.cut();
      gateway.cut();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                JsonNode status = api.get(TABLES + "pool_cut").body().path("status");
                assertThat(status.path("phase").asString())
                    .as(status.toString())
                    .isEqualTo("DEGRADED");
                assertThat(status.path("message").asString()).contains("Compute pool cut");
              });
      assertThat(api.get("/v1/compute-pools/cut").body().path("capacity").path("health").asString())
          .isEqualTo("UNREACHABLE");
      await()
          .atMost(Duration.ofSeconds(40))
          .untilAsserted(
              () ->
                  assertThat(api.get("/actuator/prometheus").text())
                      .contains("tributary_compute_pool_unreachable{pool=\"cut\"} 1.0")
                      .contains("tributary_compute_pool_unreachable{pool=\"default\"} 0.0"));
      // The default pool is untouched: its table runs, and a new one starts there.
      api.ok("CREATE MATERIALIZED TABLE pool_new AS SELECT order_id FROM orders");
      api.awaitPhase("pool_new", "RUNNING");
      assertThat(api.phase("pool_stay")).isEqualTo("RUNNING");
      assertThat(api.phase("pool_cut")).isEqualTo("DEGRADED");

      rest.restore();
      gateway.restore();
      api.awaitPhase("pool_cut", "RUNNING");
      assertThat(jobId(api, "pool_cut")).as("the job that ran on is adopted").isEqualTo(job);
      assertThat(state(blue.restUrl(), job)).isEqualTo("RUNNING");
      assertThat(liveJobsNamedFor(blue.restUrl(), api, "pool_cut")).isEqualTo(1);
      assertThat(liveJobsNamedFor(LocalStack.get().flinkRestUrl(), api, "pool_cut")).isZero();
    } finally {
      // The cut pool's table can only be dropped once its job can be cancelled.
      rest.restore();
      gateway.restore();
      dropTables(api, jdbc);
      jdbc.update("DELETE FROM compute_pool WHERE name = 'cut'");
      rest.close();
      gateway.close();
    }
  }
}
