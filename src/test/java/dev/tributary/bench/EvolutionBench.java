package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.catalog.CatalogService;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * An evolution (ALTER ... AS) from the statement to the new job RUNNING through Tributary, against
 * the same stop-with-savepoint and submit done by hand on the gateway, side by side in one run.
 * Prints its figures; ./mvnw -Pbench verify.
 */
@TributaryIT
class EvolutionBench {

  static final int RUNS = 4;
  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";
  static final String BEFORE =
      "SELECT order_id, customer_id, price FROM examples.marketplace.orders WHERE price > 50";
  static final String AFTER =
      "SELECT order_id, customer_id, price FROM examples.marketplace.orders WHERE price > 60";

  @LocalServerPort int port;
  @Autowired FlinkSql sql;
  @Autowired FlinkJobs jobs;
  @Autowired Topics topics;
  @Autowired CatalogService catalogs;

  @Test
  void evolutionToRunningAgainstStopAndSubmitByHand() {
    Api api = new Api(port);
    RawGateway raw = new RawGateway(sql, topics, catalogs);
    List<Long> tributary = new ArrayList<>();
    List<Long> byHand = new ArrayList<>();
    for (int i = -1; i < RUNS; i++) { // round -1 warms both paths up and is not counted
      String name = "evo_bench_" + UUID.randomUUID().toString().substring(0, 8);
      api.sql(
          "CREATE MATERIALIZED TABLE " + name + " FRESHNESS = INTERVAL '5' SECOND AS " + BEFORE,
          "examples",
          "marketplace");
      String first = awaitRunning(api, name, "");

      long start = System.nanoTime();
      api.sql("ALTER MATERIALIZED TABLE " + name + " AS " + AFTER, "examples", "marketplace");
      awaitRunning(api, name, first);
      long viaTributary = (System.nanoTime() - start) / 1_000_000;

      String columns = "order_id STRING, customer_id INT, price DOUBLE";
      String old = raw.submit("raw_" + name, columns, BEFORE, Map.of());
      awaitJob(old);
      start = System.nanoTime();
      stopWithSavepoint(old);
      String next = raw.submit("raw_" + name, columns, AFTER, Map.of());
      awaitJob(next);
      long viaGateway = (System.nanoTime() - start) / 1_000_000;
      if (i >= 0) {
        tributary.add(viaTributary);
        byHand.add(viaGateway);
      }
      api.sql("DROP MATERIALIZED TABLE " + name, "examples", "marketplace");
      jobs.cancel(next);
    }
    double t = tributary.stream().mapToLong(Long::longValue).average().orElse(0);
    double r = byHand.stream().mapToLong(Long::longValue).average().orElse(0);
    System.out.printf(
        "BENCH evolution-to-running: tributary %s ms (mean %.0f), stop-with-savepoint + submit by"
            + " hand %s ms (mean %.0f), overhead %.1f%%%n",
        tributary, t, byHand, r, 100 * (t - r) / r);
  }

  private static String awaitRunning(Api api, String name, String notJob) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              var status = api.get(TABLES + name).body().path("status");
              return "RUNNING".equals(status.path("phase").asString())
                  && !status.path("job").path("id").asString().equals(notJob);
            });
    return api.get(TABLES + name).body().path("status").path("job").path("id").asString();
  }

  /** Stop-with-savepoint as a person would do it: trigger, poll, and trigger again if it failed. */
  private void stopWithSavepoint(String job) {
    for (int attempt = 0; attempt < 20; attempt++) {
      String trigger = UUID.randomUUID().toString().replace("-", "");
      jobs.triggerStopWithSavepoint(job, "file:///tmp/tributary/bench-savepoints", trigger);
      FlinkJobs.SavepointStatus.Phase phase;
      do {
        sleep(50);
        phase = jobs.savepointStatus(job, trigger).phase();
      } while (phase == FlinkJobs.SavepointStatus.Phase.IN_PROGRESS);
      if (phase == FlinkJobs.SavepointStatus.Phase.COMPLETED) {
        return;
      }
      sleep(200);
    }
    throw new IllegalStateException("Job " + job + " did not stop with a savepoint");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitJob(String id) {
    RawGateway.awaitRunning(jobs, id);
  }
}
