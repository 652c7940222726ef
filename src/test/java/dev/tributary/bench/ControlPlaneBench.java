package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.catalog.CatalogService;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import dev.tributary.system.ServerTiming;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * (a) CREATE to RUNNING through Tributary against the same work done by hand on the SQL Gateway, in
 * interleaved rounds (service, raw, raw, service ...: ABBA) so that the machine's noise hits both.
 * Each round prints both waterfalls:
 *
 * <ul>
 *   <li>the service's: the CREATE call as the client saw it, split by its {@code Server-Timing}
 *       (parse, the script's runs against the store, the remote reads between them, and the calls
 *       to each system); then, from the table's events (the service's clock, the same machine), the
 *       reconciler's wake-up and validation, the topic (created while the job's session is opened
 *       and its tables declared), the subjects, the submission (the job's intent and its INSERT),
 *       the job's start, and the client's first sight of RUNNING, by a GET that answers once the
 *       table has settled ({@code ?waitSeconds=60}), as a CI step would ask;
 *   <li>the raw one: topic, session, DDL, INSERT, and RUNNING seen by polling the JobManager every
 *       50 ms (it has no such wait).
 * </ul>
 *
 * <p>Then the medians, the 90th percentiles and the overhead, paired by round with its median's 95%
 * interval, and whether that interval shows the target (under 10%) met. A JFR recording of the
 * rounds is kept as {@code target/bench/control-plane.jfr}. ./mvnw -Pbench verify; {@code
 * -Dbench.rounds}.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
class ControlPlaneBench {

  /**
   * 30 rounds: the paired median's 95% interval is then the 10th to the 21st difference, where with
   * 10 rounds it was the 2nd to the 9th, about as wide as the overhead it had to bound.
   */
  static final int ROUNDS = Integer.getInteger("bench.rounds", 30);

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  /**
   * Each round's query differs (its bound), so that neither path is answered from what Flink said
   * of an earlier round: the service keeps Flink's answers by query (see QueryPlanner).
   */
  static String query(int round) {
    return "SELECT order_id, customer_id, price FROM examples.marketplace.orders WHERE price > "
        + (50 + round);
  }

  /** The service's events that close a phase, and the phase each closes. */
  static final List<String[]> EVENT_PHASES =
      List.of(
          new String[] {"QueryValidated", "wake+validate"},
          // The topic is created while the job's session is opened and its tables declared.
          new String[] {"TopicCreated", "topic+session"},
          new String[] {"SchemaRegistered", "subjects"},
          new String[] {"JobSubmitted", "submit"},
          new String[] {"JobRunning", "job start"});

  @LocalServerPort int port;
  @Autowired FlinkSql sql;
  @Autowired FlinkJobs jobs;
  @Autowired Topics topics;
  @Autowired CatalogService catalogs;

  @Test
  void createToRunningAgainstRawSubmission() throws Exception {
    Api api = new Api(port);
    Waterfall service = new Waterfall("create-to-running service");
    Waterfall raw = new Waterfall("create-to-running raw");
    Profile profile = null;
    for (int i = -1; i < ROUNDS; i++) { // round -1 warms both paths up and is not counted
      if (i == 0) {
        profile = Profile.start(); // the counted rounds only
      }
      String name = "bench_" + UUID.randomUUID().toString().substring(0, 8);
      Waterfall s = i >= 0 ? service : new Waterfall("warm-up");
      Waterfall r = i >= 0 ? raw : new Waterfall("warm-up");
      s.round();
      r.round();
      // ABBA: which path goes first alternates, so that what a round leaves running (the last
      // job's deployment, the drop of the last table) does not always fall on the same path.
      double viaService;
      double viaRaw;
      if (i % 2 == 0) {
        viaService = throughService(api, name, query(2 * i + 2), s);
        viaRaw = byHand("raw_" + name, query(2 * i + 3), r);
      } else {
        viaRaw = byHand("raw_" + name, query(2 * i + 3), r);
        viaService = throughService(api, name, query(2 * i + 2), s);
      }
      if (i >= 0) {
        s.total(viaService, i);
        r.total(viaRaw, i);
      }
      // The next round starts once this one's table is gone and its job ended, so that neither
      // path is timed while the other's teardown runs.
      String job = api.get(TABLES + name).body().path("status").path("job").path("id").asString();
      api.sql("DROP MATERIALIZED TABLE " + name, "examples", "marketplace");
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> api.get(TABLES + name).status() == 404);
      RawGateway.awaitEnded(jobs, job);
    }
    Path jfr = profile == null ? null : profile.keep("control-plane"); // null: no counted round
    if (profile != null) {
      profile.close();
    }

    service.printSummary();
    raw.printSummary();
    System.out.printf(
        Locale.ROOT,
        "BENCH create-to-running: service median %.0f ms (p90 %.0f), raw median %.0f ms (p90"
            + " %.0f), overhead %.1f%% of the medians; the service %s; %s; JFR in %s%n",
        service.median(),
        service.p90(),
        raw.median(),
        raw.p90(),
        100 * (service.median() - raw.median()) / raw.median(),
        service.pairedAgainst(raw),
        service.verdict(raw, 10),
        jfr);
  }

  /**
   * CREATE, then RUNNING as a client sees it that waits with {@code ?waitSeconds=}; the phases into
   * {@code w}.
   */
  private double throughService(Api api, String name, String query, Waterfall w)
      throws IOException {
    Instant started = Instant.now();
    long start = System.nanoTime();
    Api.Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE " + name + " FRESHNESS = INTERVAL '5' SECOND AS " + query,
            "examples",
            "marketplace");
    double call = (System.nanoTime() - start) / 1e6;
    if (created.status() != 200) {
      throw new IllegalStateException(created.text());
    }
    w.phase("create call", call);
    w.serverTiming("create", created.headers().getFirst(ServerTiming.HEADER));
    // As a CI step would: a GET that answers once the table has settled (TableWaits), asked again
    // if the wait is up first; the raw path polls the JobManager, which has no such wait.
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode status = api.get(TABLES + name + "?waitSeconds=60").body().path("status");
      String phase = status.path("phase").asString();
      if ("RUNNING".equals(phase)) {
        break;
      }
      if ("FAILED".equals(phase) || System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " is " + phase + ": " + status);
      }
    }
    double total = (System.nanoTime() - start) / 1e6;
    Instant seen = started.plusNanos((long) (total * 1e6));

    Map<String, Instant> at = new HashMap<>();
    for (JsonNode e : api.get(TABLES + name + "/events").body().path("items")) {
      at.putIfAbsent(e.path("reason").asString(), Instant.parse(e.path("at").asString()));
    }
    Instant from = at.getOrDefault("Created", started);
    for (String[] step : EVENT_PHASES) {
      Instant to = at.get(step[0]);
      if (to != null) {
        w.phase(step[1], Duration.between(from, to).toNanos() / 1e6);
        from = to;
      }
    }
    w.phase("running seen", Duration.between(from, seen).toNanos() / 1e6);
    return total;
  }

  /** Topic, session, source tables, sink table, INSERT: what a user would do without Tributary. */
  private double byHand(String topic, String query, Waterfall w) {
    long start = System.nanoTime();
    String jobId =
        new RawGateway(sql, topics, catalogs)
            .submit(topic, "order_id STRING, customer_id INT, price DOUBLE", query, Map.of(), w);
    long submitted = System.nanoTime();
    RawGateway.awaitRunning(jobs, jobId);
    long running = System.nanoTime();
    w.phase("running seen", (running - submitted) / 1e6);
    jobs.cancel(jobId);
    RawGateway.awaitEnded(jobs, jobId); // not timed: the cancel is not part of the path
    return (running - start) / 1e6;
  }
}
