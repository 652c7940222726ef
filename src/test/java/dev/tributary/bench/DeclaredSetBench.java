package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.port.FlinkJobs;
import dev.tributary.reconcile.ReconcileWorker;
import dev.tributary.system.ServerTiming;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * (c) A declared set of 200 files, one table each, as {@code tributary plan} and {@code apply} send
 * them, through the real path (parse, the set's runs against PostgreSQL, Flink's validation through
 * the SQL Gateway, the reconciler, Kafka, the registry, the MiniCluster):
 *
 * <ol>
 *   <li>the plan of the 200 new files, once;
 *   <li>their apply, and the time until every table is RUNNING. Each table's events and its job's
 *       record in the JobManager give its waterfall (wake-up and validation, topic, subjects, the
 *       wait for a submission slot, session and submission, the job RUNNING in Flink, the
 *       reconciler noticing it), printed as medians over the tables. The control plane's time
 *       beyond the jobs' own start is the part of the wall time in which no table was in Flink's
 *       hands: Flink's span of a table runs from the moment its pass took a submission slot (its
 *       session opens then; {@code SubmissionSlots} logs it, and this bench reads that log line) to
 *       its job RUNNING by the JobManager's record, and the spans' union is taken from the wall
 *       time. A table waiting for a slot is not in Flink's hands;
 *   <li>the plan of the same 200 files, now unchanged, in rounds after warm-up rounds.
 * </ol>
 *
 * A JFR recording of it all is kept as {@code target/bench/declared-set.jfr}. The 200 jobs need 200
 * task slots: the bench profile starts the MiniCluster with 256. ./mvnw -Pbench verify; {@code
 * -Dbench.files}, {@code -Dbench.rounds}, {@code -Dbench.warmup}.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
class DeclaredSetBench {

  static final int FILES = Integer.getInteger("bench.files", 200);
  static final int ROUNDS = Integer.getInteger("bench.rounds", 5);
  static final int WARMUP = Integer.getInteger("bench.warmup", 2);

  /** The events that close a phase of a table, and the phase each closes. */
  static final List<String[]> EVENT_PHASES =
      List.of(
          new String[] {"QueryValidated", "wake+validate"},
          // The topic is created while the job waits for a slot, then while its session is
          // opened and its tables declared.
          new String[] {"SlotTaken", "until a slot"},
          new String[] {"TopicCreated", "session+topic"},
          new String[] {"SchemaRegistered", "subjects"},
          new String[] {"JobSubmitted", "submit"});

  @LocalServerPort int port;

  @Autowired FlinkJobs jobs;

  @Test
  void planAndApplyTwoHundredDeclaredFiles() throws Exception {
    Api api = new Api(port);
    String catalog = "declared_bench_" + UUID.randomUUID().toString().substring(0, 6);
    String database = "db";
    String sets = "/v1/catalogs/" + catalog + "/databases/" + database;
    List<Map<String, String>> files = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      files.add(
          Map.of(
              "name",
              String.format(Locale.ROOT, "t%03d.sql", i),
              "sql",
              "CREATE MATERIALIZED TABLE t"
                  + i
                  + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE price > "
                  + i));
    }
    Map<String, Object> set = Map.of("files", files);

    Profile profile = Profile.start();
    try {
      Waterfall newPlan = new Waterfall("declared " + FILES + " new files plan");
      newPlan.round();
      long start = System.nanoTime();
      Api.Answer planned = api.post(sets + "/plans", set);
      double millis = (System.nanoTime() - start) / 1e6;
      require(planned, 200);
      newPlan.serverTiming("plan", planned.headers().getFirst(ServerTiming.HEADER));
      newPlan.total(millis, 0);

      applyUntilRunning(api, sets, set);

      Waterfall unchanged = new Waterfall("declared " + FILES + " unchanged files plan");
      for (int round = -WARMUP; round < ROUNDS; round++) {
        unchanged.round();
        start = System.nanoTime();
        Api.Answer answer = api.post(sets + "/plans", set);
        millis = (System.nanoTime() - start) / 1e6;
        require(answer, 200);
        long changed =
            count(
                answer.body().path("objects"),
                o -> !"UNCHANGED".equals(o.path("action").asString()));
        if (changed != 0) {
          throw new IllegalStateException(changed + " objects are not UNCHANGED: " + answer.text());
        }
        unchanged.serverTiming("plan", answer.headers().getFirst(ServerTiming.HEADER));
        if (round >= 0) {
          unchanged.total(millis, round);
        }
      }
      unchanged.printSummary();
      System.out.printf(
          Locale.ROOT,
          "BENCH declared: plan of %d unchanged files, median %.0f ms (p90 %.0f)%n",
          FILES,
          unchanged.median(),
          unchanged.p90());
      Path jfr = profile.keep("declared-set");
      System.out.println("BENCH declared: JFR in " + jfr);
    } finally {
      profile.close();
      dropAll(api, catalog, database, sets);
    }
  }

  private void applyUntilRunning(Api api, String sets, Map<String, Object> set) throws Exception {
    // When each table's pass took its submission slot: the start of Flink's span of it.
    // SubmissionSlots is package-private in the reconciler's package: its logger is named after it.
    Logger slotLog =
        (Logger)
            LoggerFactory.getLogger(ReconcileWorker.class.getPackageName() + ".SubmissionSlots");
    Level slotLevel = slotLog.getLevel();
    ListAppender<ILoggingEvent> slotLines = new ListAppender<>();
    slotLines.start();
    slotLog.addAppender(slotLines);
    slotLog.setLevel(Level.DEBUG);
    // When every task of each job first ran, by the job overview (DEPLOYING until then).
    Map<String, Instant> tasksRunning = new ConcurrentHashMap<>();
    ScheduledExecutorService overviews = Executors.newSingleThreadScheduledExecutor();
    overviews.scheduleWithFixedDelay(
        () -> {
          try {
            Instant now = Instant.now();
            for (FlinkJobs.JobSummary job : jobs.overview()) {
              if (job.state() == FlinkJobs.JobState.RUNNING) {
                tasksRunning.putIfAbsent(job.id(), now);
              }
            }
          } catch (RuntimeException e) {
            // the next look counts
          }
        },
        0,
        100,
        TimeUnit.MILLISECONDS);
    Instant started = Instant.now();
    long start = System.nanoTime();
    Api.Answer applied = api.post(sets + "/apply", set);
    double call = (System.nanoTime() - start) / 1e6;
    require(applied, 200);
    Waterfall apply = new Waterfall("declared " + FILES + " files apply");
    apply.round();
    apply.phase("apply call", call);
    apply.serverTiming("apply", applied.headers().getFirst(ServerTiming.HEADER));
    await()
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> running(api, sets) == FILES);
    double wall = (System.nanoTime() - start) / 1e6;
    apply.phase("until all RUNNING", wall - call);
    apply.total(wall, 0);
    overviews.shutdownNow();
    slotLog.detachAppender(slotLines);
    slotLog.setLevel(slotLevel);
    Map<String, Instant> slotTaken = new HashMap<>();
    for (ILoggingEvent line : List.copyOf(slotLines.list)) {
      String table = line.getMDCPropertyMap().get("table");
      if (table != null) {
        slotTaken.putIfAbsent(
            table.substring(table.lastIndexOf('.') + 1), line.getInstant()); // the first submission
      }
    }

    // Each table's waterfall from its events, and Flink's span of it.
    Waterfall perTable = new Waterfall("declared apply, per table");
    List<Instant[]> spans = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      Map<String, Instant> at = new HashMap<>();
      for (JsonNode e :
          api.get(sets + "/materialized-tables/t" + i + "/events?limit=100").body().path("items")) {
        at.putIfAbsent(e.path("reason").asString(), Instant.parse(e.path("at").asString()));
      }
      if (slotTaken.containsKey("t" + i)) {
        at.put("SlotTaken", slotTaken.get("t" + i));
      }
      perTable.round();
      Instant from = at.getOrDefault("Created", started);
      Instant first = from;
      for (String[] step : EVENT_PHASES) {
        Instant to = at.get(step[0]);
        if (to != null) {
          perTable.phase(step[1], Duration.between(from, to).toNanos() / 1e6);
          from = to;
        }
      }
      // When Flink had the job RUNNING, by the JobManager's own record: the service's JobRunning
      // event is when its reconciler noticed, which may be later.
      String job =
          api.get(sets + "/materialized-tables/t" + i)
              .body()
              .path("status")
              .path("job")
              .path("id")
              .asString();
      Instant flinkRunning = JobManagerRecord.at(job, "RUNNING");
      Instant submitted = at.get("JobSubmitted");
      Instant noticed = at.get("JobRunning");
      Instant flinkFrom = at.get("SlotTaken");
      if (flinkFrom == null || submitted == null || noticed == null) {
        throw new IllegalStateException("t" + i + " lacks events: " + at);
      }
      Instant allTasks = tasksRunning.getOrDefault(job, flinkRunning);
      if (allTasks.isBefore(flinkRunning)) {
        allTasks = flinkRunning;
      }
      perTable.phase(
          "job RUNNING in Flink", Duration.between(submitted, flinkRunning).toNanos() / 1e6);
      perTable.phase("its tasks running", Duration.between(flinkRunning, allTasks).toNanos() / 1e6);
      perTable.phase("RUNNING noticed", Duration.between(allTasks, noticed).toNanos() / 1e6);
      perTable.quietTotal(Duration.between(first, noticed).toNanos() / 1e6);
      Instant flinkTo = allTasks;
      spans.add(new Instant[] {flinkFrom, flinkTo});
    }
    perTable.printSummary();
    double flink = unionMillis(spans);
    Instant firstIn = spans.stream().map(s -> s[0]).min(Comparator.naturalOrder()).orElseThrow();
    Instant lastOut = spans.stream().map(s -> s[1]).max(Comparator.naturalOrder()).orElseThrow();
    System.out.printf(
        Locale.ROOT,
        "BENCH declared: first table in Flink's hands %.0f ms after the call started, last job"
            + " with every task running %.0f ms after%n",
        Duration.between(started, firstIn).toNanos() / 1e6,
        Duration.between(started, lastOut).toNanos() / 1e6);
    System.out.printf(
        Locale.ROOT,
        "BENCH declared: apply of %d new files until all RUNNING %.0f ms (the call %.0f ms); some"
            + " table in Flink's hands (from its submission slot to every task of its job"
            + " running)"
            + " %.0f ms of it; control plane beyond the jobs' own start %.0f ms%n",
        FILES,
        wall,
        call,
        flink,
        wall - flink);
  }

  /** How many of the database's tables are RUNNING, one page of up to 500. */
  private static long running(Api api, String sets) {
    JsonNode items = api.get(sets + "/materialized-tables?limit=500").body().path("items");
    return count(items, t -> "RUNNING".equals(t.path("status").path("phase").asString()));
  }

  /** The length of the union of the spans, in milliseconds. */
  static double unionMillis(List<Instant[]> spans) {
    List<Instant[]> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparing(s -> s[0]));
    Duration union = Duration.ZERO;
    Instant from = null;
    Instant to = null;
    for (Instant[] s : sorted) {
      if (to == null || s[0].isAfter(to)) {
        if (to != null) {
          union = union.plus(Duration.between(from, to));
        }
        from = s[0];
        to = s[1];
      } else if (s[1].isAfter(to)) {
        to = s[1];
      }
    }
    if (to != null) {
      union = union.plus(Duration.between(from, to));
    }
    return union.toNanos() / 1e6;
  }

  private static long count(JsonNode items, Predicate<JsonNode> test) {
    long n = 0;
    for (JsonNode item : items) {
      if (test.test(item)) {
        n++;
      }
    }
    return n;
  }

  /** Drops the tables, and waits for them to go: the benchmarks that follow need the slots. */
  private static void dropAll(Api api, String catalog, String database, String sets) {
    StringJoiner drops = new StringJoiner(";\n");
    for (int i = 0; i < FILES; i++) {
      drops.add("DROP MATERIALIZED TABLE IF EXISTS t" + i);
    }
    require(api.sql(drops.toString(), catalog, database), 200);
    await()
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> api.get(sets + "/materialized-tables?limit=500").body().path("items").isEmpty());
  }

  private static void require(Api.Answer answer, int status) {
    if (answer.status() != status) {
      throw new IllegalStateException(answer.status() + " " + answer.text());
    }
  }
}
