package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.catalog.CatalogService;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import dev.tributary.system.ServerTiming;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * An evolution (ALTER ... AS) from the statement to the new job RUNNING through Tributary, against
 * the same done by hand on the gateway (stop with a savepoint, then the new job submitted restored
 * from it), in interleaved rounds (service, raw, raw, service ...: ABBA), {@link #ROUNDS} after a
 * warm-up round. Each round prints both waterfalls: the service's call (with its Server-Timing),
 * then each of the table's events after it as the phase it closes (the savepoint, the submission,
 * the job's start), then RUNNING seen by the client; the raw one's stop-with-savepoint, topic,
 * session, DDL, INSERT and RUNNING seen. Then the medians and the overhead. A JFR recording is kept
 * as {@code target/bench/evolution.jfr}. ./mvnw -Pbench verify; {@code -Dbench.rounds}.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
class EvolutionBench {

  /** 20 rounds: the paired median's 95% interval is the 6th to the 15th difference. */
  static final int ROUNDS = Integer.getInteger("bench.rounds", 20);

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
  void evolutionToRunningAgainstStopAndSubmitByHand() throws Exception {
    Api api = new Api(port);
    RawGateway raw = new RawGateway(sql, topics, catalogs);
    Waterfall service = new Waterfall("evolution service");
    Waterfall byHand = new Waterfall("evolution raw");
    Profile profile = null;
    for (int i = -1; i < ROUNDS; i++) { // round -1 warms both paths up and is not counted
      if (i == -1) {
        profile = Profile.start(); // its start slows the warm-up round, which is not counted
      }
      Waterfall s = i >= 0 ? service : new Waterfall("warm-up");
      Waterfall r = i >= 0 ? byHand : new Waterfall("warm-up");
      s.round();
      r.round();
      String name = "evo_bench_" + UUID.randomUUID().toString().substring(0, 8);
      // ABBA: which path goes first alternates, so that the job the first path leaves running
      // (and what its start leaves for the JIT and the collector) does not always fall on one.
      double viaTributary;
      Evolved viaGateway;
      if (i % 2 == 0) {
        viaTributary = throughService(api, name, s);
        viaGateway = byHand(raw, "raw_" + name, r);
      } else {
        viaGateway = byHand(raw, "raw_" + name, r);
        viaTributary = throughService(api, name, s);
      }
      if (i >= 0) {
        s.total(viaTributary, i);
        r.total(viaGateway.millis(), i);
      }
      // The next round starts once this one's jobs have ended, so that neither path is timed
      // while the other's teardown runs.
      String job = api.get(TABLES + name).body().path("status").path("job").path("id").asString();
      api.sql("DROP MATERIALIZED TABLE " + name, "examples", "marketplace");
      jobs.cancel(viaGateway.job());
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> api.get(TABLES + name).status() == 404);
      RawGateway.awaitEnded(jobs, job);
      RawGateway.awaitEnded(jobs, viaGateway.job());
    }
    Path jfr = profile.keep("evolution");
    profile.close();
    service.printSummary();
    byHand.printSummary();
    System.out.printf(
        Locale.ROOT,
        "BENCH evolution-to-running: service median %.0f ms (p90 %.0f), stop-with-savepoint and"
            + " submit by hand median %.0f ms (p90 %.0f), overhead %.1f%% of the medians; the service %s; %s; JFR in"
            + " %s%n",
        service.median(),
        service.p90(),
        byHand.median(),
        byHand.p90(),
        100 * (service.median() - byHand.median()) / byHand.median(),
        service.pairedAgainst(byHand),
        service.verdict(byHand, 20),
        jfr);
  }

  /**
   * How long the old job runs, on both paths, before the timed evolution starts: a table is evolved
   * from a job that has been running, and a job stopped the moment it runs takes its savepoint
   * sooner than one that has run for a while. Before, each path stopped its old job as soon as it
   * saw it running, which the service sees later (its look at the job, then the client's poll, then
   * the ALTER call): its savepoint was taken from an older job.
   */
  static final Duration OLD_JOB_RUNS = Duration.ofSeconds(1);

  /** CREATE, RUNNING, then the timed ALTER ... AS until its new job is RUNNING. */
  private double throughService(Api api, String name, Waterfall s) {
    api.sql(
        "CREATE MATERIALIZED TABLE " + name + " FRESHNESS = INTERVAL '5' SECOND AS " + BEFORE,
        "examples",
        "marketplace");
    String first = awaitRunning(api, name, "");
    sleep(OLD_JOB_RUNS.toMillis());

    Instant started = Instant.now();
    long start = System.nanoTime();
    Api.Answer altered =
        api.sql("ALTER MATERIALIZED TABLE " + name + " AS " + AFTER, "examples", "marketplace");
    double call = (System.nanoTime() - start) / 1e6;
    if (altered.status() != 200) {
      throw new IllegalStateException(altered.text());
    }
    awaitRunning(api, name, first);
    double viaTributary = (System.nanoTime() - start) / 1e6;
    s.phase("alter call", call);
    s.serverTiming("alter", altered.headers().getFirst(ServerTiming.HEADER));
    // Each event after the call closes a phase named by it; the last one to RUNNING seen.
    Instant from = started.plusNanos((long) (call * 1e6));
    for (JsonNode e : api.get(TABLES + name + "/events?limit=500").body().path("items")) {
      Instant at = Instant.parse(e.path("at").asString());
      if (at.isAfter(from)) {
        s.phase("to " + e.path("reason").asString(), Duration.between(from, at).toNanos() / 1e6);
        from = at;
      }
    }
    s.phase(
        "running seen",
        Duration.between(from, started.plusNanos((long) (viaTributary * 1e6))).toNanos() / 1e6);
    return viaTributary;
  }

  /** The old job submitted and RUNNING, then the timed stop-with-savepoint and new submission. */
  private Evolved byHand(RawGateway raw, String name, Waterfall r) {
    String columns = "order_id STRING, customer_id INT, price DOUBLE";
    String old = raw.submit(name, columns, BEFORE, Map.of());
    awaitJob(old);
    sleep(OLD_JOB_RUNS.toMillis());
    long start = System.nanoTime();
    String savepoint = stopWithSavepoint(old);
    r.phase("stop with savepoint", (System.nanoTime() - start) / 1e6);
    // Restored from it, as the service's new job is: its sources go on from the old job's offsets,
    // so no row is lost or written twice. Without it the new job started with no state at all.
    String next =
        raw.submit(name, columns, AFTER, Map.of("execution.state-recovery.path", savepoint), r);
    long submitted = System.nanoTime();
    awaitJob(next);
    r.phase("running seen", (System.nanoTime() - submitted) / 1e6);
    return new Evolved((System.nanoTime() - start) / 1e6, next);
  }

  /** How long the evolution by hand took, and its new job (cancelled at the round's end). */
  private record Evolved(double millis, String job) {}

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

  /**
   * Stop-with-savepoint as a person would do it: trigger, poll, and trigger again if it failed; the
   * savepoint's path.
   */
  private String stopWithSavepoint(String job) {
    for (int attempt = 0; attempt < 20; attempt++) {
      String trigger = UUID.randomUUID().toString().replace("-", "");
      jobs.triggerStopWithSavepoint(job, "file:///tmp/tributary/bench-savepoints", trigger);
      FlinkJobs.SavepointStatus status;
      do {
        sleep(50);
        status = jobs.savepointStatus(job, trigger);
      } while (status.phase() == FlinkJobs.SavepointStatus.Phase.IN_PROGRESS);
      if (status.phase() == FlinkJobs.SavepointStatus.Phase.COMPLETED) {
        return status.location().orElseThrow();
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
