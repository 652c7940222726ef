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
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * A FULL refresh of a 100,000-row source through the service (ALTER ... REFRESH until the refresh
 * is SUCCEEDED: bounds, bounded batch job, tombstone scan) against the same bounded INSERT
 * submitted by hand to the gateway (session, source and sink tables, INSERT, until FINISHED), in
 * interleaved rounds (service, raw, raw, service, ...) after a warm-up round. Each round prints
 * both waterfalls: the service's from the table's events and the JobManager's record of the refresh
 * job (the call, the wake-up, bounds with session and submission, the job's run, the work after the
 * job, the client's sight of SUCCEEDED); the raw one from its calls (session, DDL, INSERT, the
 * job's run, FINISHED seen). Which path goes first alternates from round to round (ABBA). Then the
 * medians and the overhead. Each path learns of the end as its user would: the service's caller
 * waits on the refresh ({@code GET .../refreshes/{n}?waitSeconds=60}); Flink has no such wait, so
 * the raw path polls the JobManager every 50 ms. (Polling the service every 50 ms instead, each
 * poll an authenticated request with reads of the store, took CPU from the job running beside it on
 * this 2-core machine: its run was 100-200 ms longer than by hand.) Both outputs are checked to
 * hold every key. A JFR recording is kept as {@code target/bench/full-refresh.jfr}. ./mvnw -Pbench
 * verify; {@code -Dbench.rounds}.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
class RefreshBench {

  static final int ROWS = 100_000;
  static final int CUSTOMERS = 1_000;

  /** 20 rounds: the paired median's 95% interval is the 6th to the 15th difference. */
  static final int ROUNDS = Integer.getInteger("bench.rounds", 20);

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
    Waterfall service = new Waterfall("full-refresh service");
    Waterfall raw = new Waterfall("full-refresh raw");
    Profile profile = null;
    for (int run = -1; run < ROUNDS; run++) { // run -1 warms both paths up and is not counted
      if (run == -1) {
        profile = Profile.start(); // its start slows the warm-up round, which is not counted
      }
      Waterfall s = run >= 0 ? service : new Waterfall("warm-up");
      Waterfall r = run >= 0 ? raw : new Waterfall("warm-up");
      s.round();
      r.round();
      Callable<Double> throughService =
          () -> {
            Instant started = Instant.now();
            long start = System.nanoTime();
            Api.Answer asked =
                api.sql("ALTER MATERIALIZED TABLE " + table + " REFRESH", "examples", DATABASE);
            assertThat(asked.status()).as(asked.text()).isEqualTo(200);
            double call = (System.nanoTime() - start) / 1e6;
            Matcher number =
                Pattern.compile("Refresh #(\\d+)")
                    .matcher(asked.body().path("results").path(0).path("message").asString());
            assertThat(number.find()).as(asked.text()).isTrue();
            // As a CI step waits: the service answers once the refresh has ended.
            JsonNode done = null;
            while (done == null || !done.path("state").asString().matches("SUCCEEDED|FAILED")) {
              Api.Answer waited =
                  api.get(path + "/refreshes/" + number.group(1) + "?waitSeconds=60");
              assertThat(waited.status()).as(waited.text()).isEqualTo(200);
              done = waited.body();
            }
            double took = (System.nanoTime() - start) / 1e6;
            assertThat(done.path("state").asString()).as(done.toString()).isEqualTo("SUCCEEDED");
            servicePhases(s, api, path, done, started, call, took);
            return took;
          };
      Callable<Double> byHand =
          () -> {
            long start = System.nanoTime();
            String job = submitByHand(sourceDdl, query, rawTopic, kafka, r);
            Instant submitted = Instant.now();
            await()
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(50))
                .until(
                    () ->
                        jobs.overview().stream()
                            .anyMatch(
                                j ->
                                    j.id().equals(job)
                                        && j.state() == FlinkJobs.JobState.FINISHED));
            double took = (System.nanoTime() - start) / 1e6;
            Instant seen = Instant.now();
            Instant ended = JobManagerRecord.at(job, "FINISHED");
            jobPhases(r, job, submitted, ended);
            r.phase("finished seen", millis(ended, seen));
            assertThat(TopicReader.compacted(kafka, rawTopic)).hasSize(CUSTOMERS);
            return took;
          };
      // ABBA: which path goes first alternates, so that what one round leaves running (the last
      // job's cleanup, a compaction) does not always fall on the same path.
      double viaService;
      double viaGateway;
      if (run % 2 == 0) {
        viaService = throughService.call();
        viaGateway = byHand.call();
      } else {
        viaGateway = byHand.call();
        viaService = throughService.call();
      }
      if (run >= 0) {
        s.total(viaService, run);
        r.total(viaGateway, run);
      }
    }
    Path jfr = profile.keep("full-refresh");
    profile.close();
    String tableTopic = api.get(path).body().path("status").path("topic").path("name").asString();
    assertThat(TopicReader.compacted(kafka, tableTopic)).hasSize(CUSTOMERS);
    service.printSummary();
    raw.printSummary();
    System.out.printf(
        Locale.ROOT,
        "BENCH full-refresh of %d rows into %d keys: service (REFRESH to SUCCEEDED seen) median"
            + " %.0f ms (p90 %.0f), bounded INSERT by hand (session to FINISHED seen) median %.0f"
            + " ms (p90 %.0f), overhead %.1f%% of the medians; the service %s; %s; JFR in %s%n",
        ROWS,
        CUSTOMERS,
        service.median(),
        service.p90(),
        raw.median(),
        raw.p90(),
        100 * (service.median() - raw.median()) / raw.median(),
        service.pairedAgainst(raw),
        service.verdict(raw, 20),
        jfr);
    api.sql("DROP MATERIALIZED TABLE " + table, "examples", DATABASE);
  }

  /**
   * The service's waterfall of one refresh: the call, the reconciler's wake-up (to RefreshStarted),
   * bounds, session and submission (to RefreshSubmitted), the job's run as the JobManager recorded
   * it, what followed it (the tombstone scan and the observation, to RefreshSucceeded), and the
   * client's sight of SUCCEEDED.
   */
  private void servicePhases(
      Waterfall w,
      Api api,
      String path,
      JsonNode refresh,
      Instant started,
      double call,
      double total)
      throws IOException, InterruptedException {
    Map<String, Instant> at = new HashMap<>();
    long number = refresh.path("number").asLong();
    // The refresh is recorded SUCCEEDED a moment before its event is: read until it is there.
    long deadline = System.nanoTime() + 5_000_000_000L;
    for (int read = 0;
        read == 0 || (at.get("RefreshSucceeded") == null && System.nanoTime() < deadline);
        read++) {
      if (read > 0) {
        Thread.sleep(20);
      }
      at.clear();
      for (JsonNode e : api.get(path + "/events?limit=500").body().path("items")) {
        Instant when = Instant.parse(e.path("at").asString());
        if (!when.isBefore(started)) { // this refresh's, not an earlier one's
          at.putIfAbsent(e.path("reason").asString(), when);
        }
      }
    }
    Instant called = started.plusNanos((long) (call * 1e6));
    if (number <= 0 || at.get("RefreshSubmitted") == null || at.get("RefreshSucceeded") == null) {
      throw new IllegalStateException("refresh " + refresh + " lacks events: " + at);
    }
    String job = refresh.path("jobId").asString();
    Instant ended = JobManagerRecord.at(job, "FINISHED");
    w.phase("refresh call", call);
    w.phase("wake-up", millis(called, at.get("RefreshStarted")));
    w.phase("bounds+session+submit", millis(at.get("RefreshStarted"), at.get("RefreshSubmitted")));
    jobPhases(w, job, at.get("RefreshSubmitted"), ended);
    w.phase(
        "after the job (tombstone scan, observation)", millis(ended, at.get("RefreshSucceeded")));
    w.phase(
        "succeeded seen",
        millis(at.get("RefreshSucceeded"), started.plusNanos((long) (total * 1e6))));
    if (number <= 0 || at.get("RefreshSucceeded") == null) {
      throw new IllegalStateException(
          "refresh " + refresh + " has no RefreshSucceeded event: " + at);
    }
  }

  /**
   * The job's run as the JobManager recorded it, split at RUNNING (scheduling and deployment
   * before, the vertices' work after); each vertex's duration printed for the round.
   */
  private static void jobPhases(Waterfall w, String job, Instant submitted, Instant ended)
      throws IOException, InterruptedException {
    Instant running = JobManagerRecord.at(job, "RUNNING");
    w.phase("job, to RUNNING (JobManager)", millis(submitted, running));
    w.phase("job, RUNNING to its end (JobManager)", millis(running, ended));
    System.out.printf(
        Locale.ROOT, "BENCH %s job %s vertices (ms): %s%n", w, job, JobManagerRecord.vertices(job));
  }

  private static double millis(Instant from, Instant to) {
    return Duration.between(from, to).toNanos() / 1e6;
  }

  /**
   * What a user would run by hand: a batch session, the source bounded at its latest offsets, an
   * exactly-once upsert sink (as the service's, which also frames records for the registry), the
   * INSERT.
   */
  private String submitByHand(
      String sourceDdl, String query, String sink, String kafka, Waterfall w) {
    long t = System.nanoTime();
    FlinkSql.Session session =
        sql.openSession(
            "bench-raw",
            Map.of(
                "execution.runtime-mode", "batch",
                "table.builtin-catalog-name", "examples",
                "table.builtin-database-name", DATABASE));
    t = lap(w, "session", t);
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
      t = lap(w, "DDL", t);
      String job = sql.execute(session, "INSERT INTO raw_sink " + query).jobId().orElseThrow();
      lap(w, "INSERT", t);
      return job;
    } finally {
      sql.closeSession(session);
    }
  }

  private static long lap(Waterfall w, String phase, long since) {
    long now = System.nanoTime();
    w.phase(phase, (now - since) / 1e6);
    return now;
  }
}
