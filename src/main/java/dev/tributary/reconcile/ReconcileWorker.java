package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.Topics;
import dev.tributary.sql.TableOptions;
import dev.tributary.system.Beside;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.context.SmartLifecycle;

/**
 * The reconcile loop of one replica: claim as many due rows as pass threads are idle (leased, so
 * replicas never share one), look at Flink and Kafka once for many claims (one job overview, one
 * describe of the due tables' topics; see {@link Observation}), load the claimed rows in one query,
 * run a pass per row, and give each row back as its pass ends, with the time of its next look: soon
 * while something is in progress, with backoff after an error, at the resync interval after a pass
 * that acted, and never by time once a pass found nothing to do (settled). A pass that ends asks
 * for a round, which claims the next due row for its thread ({@link #fill}). Settled rows are
 * resynced by {@link #sweep}, which claims none of them and writes only what moved.
 */
public class ReconcileWorker implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ReconcileWorker.class);

  /**
   * Loop settings; {@code watchInterval} is how often job state changes are looked for, {@code
   * heartbeat} whether leases are extended while passes run (off only to test fencing).
   */
  public record Settings(
      Duration pollInterval,
      int batchSize,
      Duration lease,
      int threads,
      Duration watchInterval,
      boolean heartbeat,
      Duration eventRetention,
      int eventsPerTable) {
    public Settings(Duration pollInterval, int batchSize, Duration lease, int threads) {
      this(pollInterval, batchSize, lease, threads, Duration.ofSeconds(2), true);
    }

    public Settings(
        Duration pollInterval,
        int batchSize,
        Duration lease,
        int threads,
        Duration watchInterval,
        boolean heartbeat) {
      this(
          pollInterval,
          batchSize,
          lease,
          threads,
          watchInterval,
          heartbeat,
          Duration.ofDays(30),
          1000);
    }
  }

  private static final Pattern PIPELINE = Pattern.compile("tributary-([0-9a-f-]{36})-[0-9a-f]{8}");
  private final Map<String, FlinkJobs.JobState> lastSeen = new HashMap<>();

  /** The tables with a job in each pool, as the watch last listed them. */
  private Map<String, Set<UUID>> poolTables = Map.of();

  /** The pools the watch could not ask last time ({@link #EVERY_POOL}: none could be). */
  private Set<String> lastUnreachable = Set.of();

  /**
   * When the watch last looked (nanoTime), a day before the worker's start at first. Not 0: {@link
   * System#nanoTime} counts from the host's boot on Linux, so within one watch interval of the boot
   * a 0 read as "looked just now" and the first watch was skipped.
   */
  private long lastWatch = System.nanoTime() - Duration.ofDays(1).toNanos();

  /**
   * When a pass last asked for its next look within {@link JobSteps#STARTING_POLL} (a job it
   * submitted starting, or a refresh's job ending), by {@link System#nanoTime()}; the watch looks
   * more often for {@link JobSteps#STARTING} after.
   */
  private volatile long lastStarting = System.nanoTime() - Duration.ofHours(1).toNanos();

  /**
   * How often the watch looks while a job of this replica starts. A pass's own next look at a
   * starting job comes after the rows already due, so behind a backlog (an apply of 200 new tables)
   * the watch's mark, which puts a changed job's table first, is what gets it seen RUNNING: every 2
   * s that took a median 2.0 s after the JobManager had it running in {@code DeclaredSetBench}.
   */
  static final Duration STARTING_WATCH = Duration.ofMillis(250);

  private long lastPrune = System.nanoTime() - Duration.ofHours(1).toNanos();

  private final ReconcileStore store;
  private final ReconcileMetrics metrics;

  /** The MDC keys of a pass: the table's qualified name, and the pass's number in this process. */
  public static final String TABLE = "table";

  public static final String PASS = "pass";

  private static final AtomicLong PASSES = new AtomicLong();
  private final Reconciler reconciler;
  private final FlinkJobs jobs;
  private final Topics topics;
  private final Settings settings;
  private final String owner;
  private ScheduledExecutorService loop;
  private ScheduledExecutorService heartbeats;
  private ExecutorService passes;

  /**
   * The sweep's looks run on threads of their own: on the pass threads they queued behind the
   * passes under way, and the loop, waiting for the sweep, claimed nothing until the longest of
   * those passes ended.
   */
  private ExecutorService looks;

  private volatile boolean running;

  public ReconcileWorker(
      ReconcileStore store,
      Reconciler reconciler,
      FlinkJobs jobs,
      Settings settings,
      String owner) {
    this(store, reconciler, jobs, null, settings, owner, ReconcileMetrics.NONE);
  }

  /**
   * With {@code topics}, each batch describes all its tables' topics in one call; without, each
   * pass describes its own.
   */
  public ReconcileWorker(
      ReconcileStore store,
      Reconciler reconciler,
      FlinkJobs jobs,
      Topics topics,
      Settings settings,
      String owner,
      ReconcileMetrics metrics) {
    this.metrics = metrics;
    this.topics = topics;
    this.store = store;
    this.reconciler = reconciler;
    this.jobs = jobs;
    this.settings = settings;
    this.owner = owner;
  }

  /**
   * What the worker last saw of Flink and Kafka: one job overview (indexed per table) and one
   * describe of the due tables' topics, shared by every batch while it is younger than the watch
   * interval and newer than the last write of each row a batch claims.
   */
  private record Observation(
      long takenNanos,
      Instant storeTime,
      JobIndex jobs,
      Map<String, RemoteSystemException> unreachable,
      Map<String, Optional<Topics.TopicState>> topics) {

    /**
     * For a batch of {@link #untouched} rows: no jobs, every pool taken as answering, and only the
     * batch's own topics to describe. Never kept as {@link #observed}: it looked at nothing.
     */
    static Observation noJobs() {
      return new Observation(
          System.nanoTime(), null, new JobIndex(List.of()), Map.of(), new ConcurrentHashMap<>());
    }

    RemoteSystemException unreachableFor(TableSnapshot table) {
      return ReconcileWorker.unreachableFor(unreachable, table);
    }

    /**
     * Good for a batch when young enough and taken after each claimed row was last written: what a
     * pass did to a row (a job submitted, a topic created) is written with its status, so an
     * observation taken before that write may not show it.
     */
    boolean covers(
        List<ReconcileStore.Claim> claims, Duration maxAge, Map<UUID, Long> releasedNanos) {
      if (System.nanoTime() - takenNanos > maxAge.toNanos()) {
        return false;
      }
      return claims.stream()
          .allMatch(
              c ->
                  c.written() != null
                      && c.written().isBefore(storeTime)
                      && releasedBefore(releasedNanos.get(c.id())));
    }

    private boolean releasedBefore(Long releasedNanos) {
      return releasedNanos == null || releasedNanos - takenNanos < 0;
    }
  }

  private volatile Observation observed;

  /** The key of {@link Observation#unreachable} when no pool could be asked. */
  private static final String EVERY_POOL = "*";

  /**
   * Why a pass over {@code table} must wait rather than act: a compute pool it is placed on or its
   * job was submitted to did not answer (its jobs are not in the overview, so the pass would take
   * them for gone and submit them again), or no pool could be asked at all. Null when it may go
   * ahead.
   */
  static RemoteSystemException unreachableFor(
      Map<String, RemoteSystemException> unreachable, TableSnapshot table) {
    if (unreachable.isEmpty()) {
      return null;
    }
    RemoteSystemException every = unreachable.get(EVERY_POOL);
    if (every != null) {
      return every;
    }
    for (String pool : pools(table)) {
      RemoteSystemException down = unreachable.get(pool);
      if (down != null) {
        return down;
      }
    }
    return null;
  }

  /**
   * A row no pass has written: PENDING, never observed, with the status a CREATE stores. Every pass
   * writes its intent before it acts (a topic, a subject, a job's name and id), so nothing in Flink
   * or Kafka can be this table's yet: its jobs are named after its id, new with the row. Its pass
   * needs no overview of the JobManagers, whose answer would list none of its jobs; and a pool that
   * does not answer cannot hide one of them, so the pass goes ahead and meets the outage at its
   * first call to Flink, as any pass does.
   */
  static boolean untouched(TableSnapshot table) {
    return table.phase() == Phase.PENDING
        && table.observedGeneration() == 0
        && TableStatus.initial().equals(table.status());
  }

  /** The pools a table's pass looks at: where it is placed, and where its job was submitted. */
  static Set<String> pools(TableSnapshot table) {
    Set<String> pools = new HashSet<>();
    pools.add(
        table.spec() == null || table.spec().definition() == null
            ? TableOptions.DEFAULT_POOL
            : TableOptions.pool(table.spec().definition().options()));
    String submitted = table.status() == null ? null : table.status().computePool();
    pools.add(submitted == null ? TableOptions.DEFAULT_POOL : submitted);
    return pools;
  }

  /** Every pool's jobs; when not even that could be asked, every table waits. */
  private FlinkJobs.Observed observeJobs() {
    try {
      return jobs.observe();
    } catch (RemoteSystemException e) {
      return new FlinkJobs.Observed(Map.of(), Map.of(EVERY_POOL, e));
    }
  }

  /**
   * When this worker last released each row, or last saw its job change in a watch: a pass may act
   * without writing the row (a refresh's job is recorded in its ledger), so a look taken before a
   * release does not serve that row, nor one taken before the watch's look that marked it.
   */
  private final Map<UUID, Long> released = new ConcurrentHashMap<>();

  /** Calls to Flink and Kafka the observations made, for the benchmark and the logs. */
  private final AtomicLong observations = new AtomicLong();

  /** How many times the worker looked at Flink and Kafka for its batches (each one overview). */
  public long observations() {
    return observations.get();
  }

  private Observation observe(List<ReconcileStore.Claim> claimed) {
    Observation last = observed;
    if (last != null && last.covers(claimed, settings.watchInterval(), released)) {
      return last;
    }
    Instant storeTime = store.now();
    long taken = System.nanoTime();
    observations.incrementAndGet();
    // The JobManagers and the broker are asked at once: neither answer depends on the other, and
    // the round's passes wait for both (12-15 ms each with the local stack).
    CompletableFuture<FlinkJobs.Observed> jobsSeen = Beside.ask(this::observeJobs);
    Map<String, Optional<Topics.TopicState>> seen = describeTopics(store.dueTopics());
    FlinkJobs.Observed flink = Beside.await(jobsSeen);
    Observation now =
        new Observation(
            taken,
            storeTime,
            new JobIndex(flink.jobs()),
            flink.unreachable(),
            seen == null ? null : new ConcurrentHashMap<>(seen));
    observed = now;
    log.debug(
        "Observed {} jobs and {} topics in {} ms",
        flink.jobs().size(),
        seen == null ? "no" : seen.size(),
        (System.nanoTime() - taken) / 1_000_000);
    return now;
  }

  /** Rows claimed at once, and each one's pass, ready to run (the rows dropped since left out). */
  private record Batch(List<ReconcileStore.Claim> claimed, List<Pass> passes) {}

  /** A claimed row's pass; it answers the row's release, or null when it has none to give. */
  private record Pass(ReconcileStore.Claim claim, Callable<ReconcileStore.Release> run) {}

  /**
   * Claims up to {@code limit} due rows, loads them in one query, and looks at Flink and Kafka for
   * them (or reuses the last look, see {@link Observation}). A batch of rows no pass has written
   * yet, just created, needs no look at the JobManagers (see {@link #untouched}): only their topics
   * are described. Every claim returned is in {@link #held} until {@link #release} gives it back.
   */
  private Batch claim(int limit) {
    List<ReconcileStore.Claim> claimed = store.claim(owner, limit, settings.lease());
    if (claimed.isEmpty()) {
      return new Batch(claimed, List.of());
    }
    metrics.claimed(claimed.size());
    held.addAll(claimed);
    try {
      Map<UUID, TableSnapshot> snapshots =
          store.loadAll(claimed.stream().map(ReconcileStore.Claim::id).toList());
      Observation seen =
          snapshots.values().stream().allMatch(ReconcileWorker::untouched)
              ? Observation.noJobs()
              : observe(claimed);
      Map<String, Optional<Topics.TopicState>> batchTopics = topicsOf(seen, snapshots.values());
      List<Pass> work = new ArrayList<>();
      for (ReconcileStore.Claim claim : claimed) {
        TableSnapshot snapshot = snapshots.get(claim.id());
        if (snapshot == null) {
          held.remove(claim); // dropped since it was claimed: there is no row to give back
          continue;
        }
        List<FlinkJobs.JobSummary> own = seen.jobs().of(snapshot);
        Map<String, Optional<Topics.TopicState>> ownTopic = topicOf(batchTopics, snapshot);
        work.add(
            new Pass(
                claim,
                () -> reconcileOne(claim, snapshot, own, seen.unreachableFor(snapshot), ownTopic)));
      }
      return new Batch(claimed, work);
    } catch (RuntimeException e) {
      held.removeAll(claimed); // their leases run out; another round claims them again
      throw e;
    }
  }

  /**
   * One batch, run to its end: claim, observe, reconcile, release. Returns how many rows it worked
   * on. The loop does not wait for a batch ({@link #fill}); this is for driving the worker step by
   * step.
   */
  public int runOnce() {
    Batch batch = claim(settings.batchSize());
    if (batch.claimed().isEmpty()) {
      return 0;
    }
    List<ReconcileStore.Release> releases = new ArrayList<>();
    try {
      for (Future<ReconcileStore.Release> done :
          passes.invokeAll(batch.passes().stream().map(Pass::run).toList())) {
        ReconcileStore.Release release = done.get();
        if (release != null) {
          releases.add(release);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.error("A reconcile pass failed outside its own handling", e.getCause());
    } finally {
      try {
        release(releases);
      } finally {
        held.removeAll(batch.claimed()); // after the release: see dueOnRelease
        batch.claimed().forEach(c -> dueOnRelease.remove(c.id()));
      }
    }
    return batch.claimed().size();
  }

  /**
   * Keeps the pass threads busy: claims as many due rows as threads are idle (at most a batch) and
   * starts their passes without waiting for them. Each pass gives its row back as soon as it ends
   * and asks for another round, so a long pass (a job's submission, seconds on a busy gateway)
   * holds its own thread only; when the loop waited for whole batches, the threads that finished
   * first stood idle until the batch's longest pass ended, and a table made due meanwhile (its job
   * just RUNNING) waited for it too. Returns how many rows it claimed.
   */
  int fill() {
    int claimed = 0;
    while (running) {
      int idle = settings.threads() - inFlight.get();
      if (idle <= 0) {
        break;
      }
      int limit = Math.min(idle, settings.batchSize());
      Batch batch = claim(limit);
      claimed += batch.claimed().size();
      for (Pass pass : batch.passes()) {
        inFlight.incrementAndGet();
        try {
          passes.execute(() -> runAndRelease(pass));
        } catch (RejectedExecutionException e) {
          // Stopping: the row stays claimed, and stop() gives every claim back due now.
          inFlight.decrementAndGet();
          held.remove(pass.claim());
        }
      }
      if (batch.claimed().size() < limit) {
        break; // nothing more is due
      }
      watchSafely();
    }
    return claimed;
  }

  /** A pass of {@link #fill}: runs, gives its row back, and asks for a round to fill its thread. */
  private void runAndRelease(Pass pass) {
    ReconcileStore.Release release = null;
    try {
      release = pass.run().call();
    } catch (Exception e) {
      log.error("A reconcile pass failed outside its own handling", e);
    } finally {
      try {
        release(release == null ? List.of() : List.of(release));
      } catch (RuntimeException e) {
        log.warn("Releasing table {} failed: {}", pass.claim().id(), e.toString());
      }
      held.remove(pass.claim()); // after the release: see dueOnRelease
      dueOnRelease.remove(pass.claim().id()); // a row not given back (gone, or lost)
      inFlight.decrementAndGet();
      wake();
    }
  }

  /**
   * Gives the rows back, each with its next look; a row to be looked at again sooner than the next
   * poll brings a round forward.
   */
  private void release(List<ReconcileStore.Release> releases) {
    if (releases.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    releases.forEach(r -> released.put(r.id(), now));
    store.releaseAll(releases);
    List<UUID> again =
        releases.stream().map(ReconcileStore.Release::id).filter(dueOnRelease::remove).toList();
    if (!again.isEmpty()) {
      store.markDue(again);
    }
    releases.stream()
        .map(ReconcileStore.Release::after)
        .filter(after -> after.compareTo(settings.pollInterval()) < 0)
        .min(Duration::compareTo)
        .ifPresent(this::wakeIn);
  }

  /** The claims this replica's passes hold: the heartbeat extends their leases. */
  private final Set<ReconcileStore.Claim> held = ConcurrentHashMap.newKeySet();

  /** Rows the watch made due while a pass of this replica held them ({@link #watch}). */
  private final Set<UUID> dueOnRelease = ConcurrentHashMap.newKeySet();

  /** Passes started by {@link #fill} and not yet ended. */
  private final AtomicInteger inFlight = new AtomicInteger();

  /** Whether a round is queued on the loop already: passes ending together ask for one. */
  private final AtomicBoolean roundAsked = new AtomicBoolean();

  /**
   * Runs every third of the lease: extends the lease of every row a pass holds, so that none runs
   * out while its pass waits on a slow call.
   */
  private void beat() {
    if (!held.isEmpty()) {
      extend(List.copyOf(held));
    }
  }

  /** The shortest wait between two rounds that a pass's short next look brings about. */
  static final Duration SHORTEST_WAIT = Duration.ofMillis(20);

  /**
   * A pass asked to be looked at again sooner than the next poll (a job starting, say): a round
   * then, rather than at the poll.
   */
  private void wakeIn(Duration after) {
    if (loop != null && running) {
      long millis = Math.max(SHORTEST_WAIT.toMillis(), after.toMillis());
      try {
        loop.schedule(this::safeRun, millis, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // Shutting down: no more rounds.
      }
    }
  }

  private void extend(List<ReconcileStore.Claim> claims) {
    try {
      store.extend(claims, settings.lease());
    } catch (RuntimeException e) {
      log.warn("Extending leases failed: {}", e.toString());
    }
  }

  /**
   * The batch's topics as the observation saw them; topics it did not look at (a row that became
   * due after it was taken) are described now, in one call. Null when there is no Kafka port or
   * Kafka does not answer: then each pass asks (and meets the outage) itself.
   */
  private Map<String, Optional<Topics.TopicState>> topicsOf(
      Observation seen, Collection<TableSnapshot> snapshots) {
    if (seen.topics() == null) {
      return null;
    }
    List<String> missing =
        snapshots.stream()
            .filter(s -> !s.deletionRequested() && s.topic() != null)
            .map(TableSnapshot::topic)
            .filter(t -> !seen.topics().containsKey(t))
            .toList();
    if (!missing.isEmpty()) {
      Map<String, Optional<Topics.TopicState>> more = describeTopics(missing);
      if (more == null) {
        return null;
      }
      seen.topics().putAll(more);
    }
    return seen.topics();
  }

  /**
   * What the observation saw of this table's topic only: a pass copies what it is given, and
   * handing every pass the whole map made a round quadratic in the number of tables.
   */
  private static Map<String, Optional<Topics.TopicState>> topicOf(
      Map<String, Optional<Topics.TopicState>> seen, TableSnapshot table) {
    if (seen == null) {
      return null;
    }
    Optional<Topics.TopicState> state = table.topic() == null ? null : seen.get(table.topic());
    return state == null ? Map.of() : Map.of(table.topic(), state);
  }

  /**
   * One describe of the given topics, so that a pass over a table with nothing to do makes no call
   * of its own to Kafka. Null when there is no Kafka port or Kafka does not answer.
   */
  private Map<String, Optional<Topics.TopicState>> describeTopics(Collection<String> names) {
    if (topics == null) {
      return null;
    }
    if (names.isEmpty()) {
      return new HashMap<>();
    }
    try {
      Map<String, Topics.TopicState> found = topics.describeAll(names);
      Map<String, Optional<Topics.TopicState>> seen = new HashMap<>();
      names.forEach(n -> seen.put(n, Optional.ofNullable(found.get(n))));
      return seen;
    } catch (RemoteSystemException e) {
      return null;
    }
  }

  /** One row's pass; answers the row's release, or null when the row is gone or lost. */
  private ReconcileStore.Release reconcileOne(
      ReconcileStore.Claim claim,
      TableSnapshot table,
      List<FlinkJobs.JobSummary> overview,
      RemoteSystemException unreachable,
      Map<String, Optional<Topics.TopicState>> batchTopics) {
    UUID id = claim.id();
    UUID token = claim.token();
    Optional<TableSnapshot> snapshot = Optional.of(table);
    long generation = snapshot.get().generation();
    int attempt = claim.attempt() >= 0 ? claim.attempt() : store.attempt(id);
    long started = System.nanoTime();
    String outcome = "error";
    Duration nextLook = null;
    // Every line this pass logs says which table and which pass (structured logs: MDC fields).
    MDC.put(TABLE, table.name().toString());
    MDC.put(PASS, Long.toString(PASSES.incrementAndGet(), 36));
    ReconcileMetrics.Traced span = metrics.passSpan(table.name().toString());
    try {
      Reconciler.Next next =
          unreachable == null
              ? reconciler.reconcile(snapshot.get(), overview, batchTopics, token, settings.lease())
              : reconciler.unavailable(snapshot.get(), unreachable, token, settings.lease());
      if (next == null) {
        outcome = "dropped";
        released.remove(id);
        return null;
      }
      outcome = next.failed() ? "failed" : "ok";
      if (!next.failed() && next.after().compareTo(JobSteps.STARTING_POLL) <= 0) {
        lastStarting = System.nanoTime();
      }
      if (next.failed()) {
        Duration backoff = backoff(attempt + 1);
        nextLook = next.after().compareTo(backoff) > 0 ? next.after() : backoff;
        return new ReconcileStore.Release(id, token, generation, nextLook, attempt + 1);
      }
      nextLook = next.after();
      return new ReconcileStore.Release(id, token, generation, nextLook, 0, next.settled());
    } catch (ReconcileStore.ClaimLostException e) {
      outcome = "claim_lost";
      log.info("Pass over table {} ended: {}", id, e.getMessage());
      return null;
    } catch (RuntimeException e) {
      if (!running) {
        // Cut short by shutdown (an interrupted call), not a failure: due now, for another replica.
        outcome = "abandoned";
        return new ReconcileStore.Release(id, token, generation, Duration.ZERO, attempt);
      }
      log.error("Reconciling table {} failed unexpectedly", id, e);
      return new ReconcileStore.Release(id, token, generation, backoff(attempt + 1), attempt + 1);
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      metrics.pass(took, outcome);
      log.debug(
          "Table {}: pass {} in {} ms, next look in {} ms",
          id,
          outcome,
          took.toMillis(),
          nextLook == null ? "-" : nextLook.toMillis());
      span.tag("outcome", outcome);
      span.close();
      MDC.remove(TABLE);
      MDC.remove(PASS);
    }
  }

  /**
   * 2 s, growing by 1.5 each attempt, capped at 5 minutes, with up to 20% random jitter so that
   * tables that failed together do not retry together.
   */
  static Duration backoff(int attempt) {
    double millis = 2000 * Math.pow(1.5, Math.max(0, attempt - 1));
    double capped = Math.min(millis, Duration.ofMinutes(5).toMillis());
    return Duration.ofMillis(
        (long) (capped * (1 + 0.2 * ThreadLocalRandom.current().nextDouble())));
  }

  /** Threads for passes without the polling loop; for driving {@link #runOnce()} directly. */
  public void startPassesOnly() {
    passes = Executors.newFixedThreadPool(settings.threads(), r -> daemon(r, "reconcile-pass"));
    looks = Executors.newFixedThreadPool(settings.threads(), r -> daemon(r, "reconcile-look"));
    heartbeats = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "reconcile-lease"));
    if (settings.heartbeat()) {
      // The leases are extended while the passes run, however long a gateway call takes.
      long beat = Math.max(50, settings.lease().toMillis() / 3);
      heartbeats.scheduleAtFixedRate(this::beat, beat, beat, TimeUnit.MILLISECONDS);
    }
    running = true;
  }

  @Override
  public void start() {
    startPassesOnly();
    loop = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "reconcile-loop"));
    loop.scheduleWithFixedDelay(
        this::safeRun,
        settings.pollInterval().toMillis(),
        settings.pollInterval().toMillis(),
        TimeUnit.MILLISECONDS);
    log.info("Reconciler {} started", owner);
  }

  /** When this replica last swept (or found the round taken by another replica). */
  private long lastSweep = System.nanoTime() - Duration.ofDays(1).toNanos();

  /** The snapshots of settled rows the sweep loaded, with the row's stamp then. */
  private final Map<UUID, Kept> kept = new ConcurrentHashMap<>();

  private record Kept(long stamp, TableSnapshot snapshot) {}

  /** What one sweep did, for the logs and the benchmark: how long each phase took, in ns. */
  public record Sweep(
      int settled,
      int loaded,
      int due,
      int statusesWritten,
      long stampsNanos,
      long loadNanos,
      long observeNanos,
      long looksNanos,
      long markNanos) {}

  /**
   * The resync of settled tables, once per resync interval across all replicas: no claims, no
   * writes per table. One query reads the settled rows' stamps; only rows written since the last
   * sweep are loaded again; one job overview and one describe of their topics serve them all; each
   * table then gets the same pass a claim would give it, but one that may only read ({@link
   * Reconciler#look}); the tables whose pass would act are made due in one update, and a claimed
   * pass acts on them; the statuses that only moved (a newer checkpoint) are written in one more. A
   * table whose pass has nothing to do costs no write.
   */
  public Sweep sweep() {
    long t0 = System.nanoTime();
    Map<UUID, Long> stamps = store.settled();
    kept.keySet().retainAll(stamps.keySet());
    List<UUID> stale =
        stamps.entrySet().stream()
            .filter(
                e -> kept.get(e.getKey()) == null || kept.get(e.getKey()).stamp() != e.getValue())
            .map(Map.Entry::getKey)
            .toList();
    long t1 = System.nanoTime();
    for (int from = 0; from < stale.size(); from += SWEEP_LOAD) {
      List<UUID> chunk = stale.subList(from, Math.min(stale.size(), from + SWEEP_LOAD));
      store.loadAll(chunk).forEach((id, s) -> kept.put(id, new Kept(stamps.get(id), s)));
    }
    List<TableSnapshot> tables =
        stamps.keySet().stream().map(kept::get).filter(k -> k != null).map(Kept::snapshot).toList();
    long t2 = System.nanoTime();
    if (tables.isEmpty()) {
      return new Sweep(0, stale.size(), 0, 0, t1 - t0, t2 - t1, 0, 0, 0);
    }
    FlinkJobs.Observed flink = observeJobs();
    int settled = tables.size();
    // A table whose pool cannot be looked at is claimed, and its pass says what it waits for.
    List<UUID> waiting =
        tables.stream()
            .filter(t -> unreachableFor(flink.unreachable(), t) != null)
            .map(TableSnapshot::id)
            .toList();
    if (!waiting.isEmpty()) {
      store.markDue(waiting);
      Set<UUID> marked = Set.copyOf(waiting);
      tables = tables.stream().filter(t -> !marked.contains(t.id())).toList();
      if (tables.isEmpty()) {
        return new Sweep(settled, stale.size(), waiting.size(), 0, t1 - t0, t2 - t1, 0, 0, 0);
      }
    }
    observations.incrementAndGet();
    JobIndex index = new JobIndex(flink.jobs());
    Map<String, Optional<Topics.TopicState>> seen =
        describeTopics(
            tables.stream()
                .filter(t -> !t.deletionRequested() && t.topic() != null)
                .map(TableSnapshot::topic)
                .distinct()
                .toList());
    long t3 = System.nanoTime();
    List<UUID> due = new CopyOnWriteArrayList<>();
    List<ReconcileStore.SettledStatus> moved = new CopyOnWriteArrayList<>();
    List<Callable<Void>> work = new ArrayList<>();
    int slice = Math.max(1, (tables.size() + settings.threads() - 1) / settings.threads());
    for (int from = 0; from < tables.size(); from += slice) {
      List<TableSnapshot> part = tables.subList(from, Math.min(tables.size(), from + slice));
      work.add(
          () -> {
            for (TableSnapshot table : part) {
              Reconciler.Look look = look(table, index.of(table), topicOf(seen, table));
              if (look.claim()) {
                due.add(table.id());
              } else if (look.status() != null) {
                moved.add(
                    new ReconcileStore.SettledStatus(
                        table.id(), stamps.get(table.id()), look.status()));
              }
            }
            return null;
          });
    }
    try {
      for (Future<Void> done : looks.invokeAll(work)) {
        done.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.error("A sweep failed outside its own handling", e.getCause());
    }
    long t4 = System.nanoTime();
    store.markDue(due);
    Map<UUID, Long> written = store.writeSettled(moved);
    for (ReconcileStore.SettledStatus m : moved) {
      Long stamp = written.get(m.id());
      Kept before = kept.get(m.id());
      if (stamp != null && before != null) {
        kept.put(m.id(), new Kept(stamp, before.snapshot().withStatus(m.status())));
      }
    }
    long t5 = System.nanoTime();
    return new Sweep(
        settled,
        stale.size(),
        due.size() + waiting.size(),
        written.size(),
        t1 - t0,
        t2 - t1,
        t3 - t2,
        t4 - t3,
        t5 - t4);
  }

  /** The look at one table; a look that fails unexpectedly claims it (the claim says why). */
  private Reconciler.Look look(
      TableSnapshot table,
      List<FlinkJobs.JobSummary> own,
      Map<String, Optional<Topics.TopicState>> topic) {
    try {
      return reconciler.look(table, own, topic);
    } catch (RuntimeException e) {
      log.debug("A look at table {} failed; it is claimed: {}", table.id(), e.toString());
      return new Reconciler.Look(true, null);
    }
  }

  /** Snapshots the sweep loads per query. */
  static final int SWEEP_LOAD = 1000;

  /**
   * The sweep, when its interval has passed here and no other replica took this round: how many
   * tables it made due (0 when it did not run).
   */
  int sweepWhenDue() {
    long now = System.nanoTime();
    Duration interval = reconciler.resync();
    if (now - lastSweep < interval.toNanos()) {
      return 0;
    }
    lastSweep = now;
    if (!store.beginSweep(owner, interval)) {
      return 0;
    }
    Sweep done = sweep();
    if (done.due() > 0) {
      log.info("Sweep of {} settled tables: {} need a pass", done.settled(), done.due());
    }
    return done.due();
  }

  /**
   * Between resyncs, a job can fail or be cancelled behind our back. One overview call every few
   * seconds (every {@link #STARTING_WATCH} while a job of this replica starts) finds the jobs whose
   * state changed since the last look, and makes their tables due.
   */
  void watch() {
    long now = System.nanoTime();
    long interval = settings.watchInterval().toNanos();
    if (now - lastStarting < JobSteps.STARTING.toNanos()) {
      interval = Math.min(interval, STARTING_WATCH.toNanos());
    }
    if (now - lastWatch < interval) {
      return;
    }
    lastWatch = now;
    List<UUID> changed = new ArrayList<>();
    Map<String, FlinkJobs.JobState> seen = new HashMap<>();
    Observation last = observed;
    boolean fresh =
        last != null && last.unreachable().isEmpty() && now - last.takenNanos() < interval / 2;
    long looked = System.nanoTime();
    FlinkJobs.Observed flink = fresh ? null : observeJobs();
    List<FlinkJobs.JobSummary> overview = fresh ? last.jobs().all() : flink.jobs();
    for (FlinkJobs.JobSummary job : overview) {
      Matcher m = PIPELINE.matcher(job.name());
      if (m.matches()) {
        seen.put(job.id(), job.state());
        if (job.state() != lastSeen.get(job.id())) {
          changed.add(UUID.fromString(m.group(1)));
        }
      }
    }
    PoolsSeen pools = flink == null ? null : poolsChanged(flink);
    if (pools != null) {
      changed.addAll(pools.tables());
    }
    // A row a pass of ours holds is given back with the pass's own next look, which would put it
    // behind the backlog again; it is made due once more when given back.
    for (ReconcileStore.Claim claim : held) {
      if (changed.contains(claim.id())) {
        dueOnRelease.add(claim.id());
      }
    }
    store.markDue(changed);
    if (!changed.isEmpty()) {
      log.debug("Watch found {} tables whose jobs changed: made due {}", changed.size(), changed);
    }
    if (flink != null) {
      // A look the claims took before this one may still show the old state, and would serve the
      // marked rows' passes (it covers rows released before it was taken): they would see a job
      // still deploying, and, its change already remembered here, wait behind the backlog. As
      // after a release, the claim that takes them looks again.
      for (UUID id : changed) {
        released.merge(id, looked, (before, after) -> after - before > 0 ? after : before);
      }
    }
    // Only once their tables are marked: a watch that failed to mark them finds the same changes
    // at its next turn, where a state remembered first would be a change lost for good.
    if (flink == null || flink.unreachable().isEmpty()) {
      lastSeen.clear(); // a pool that did not answer keeps what was last seen of its jobs
    }
    lastSeen.putAll(seen);
    if (pools != null) {
      poolTables = pools.poolTables();
      lastUnreachable = pools.unreachable();
    }
  }

  /**
   * What a watch saw of the pools: the tables to make due, and what to remember for the next watch
   * once they are.
   */
  private record PoolsSeen(
      List<UUID> tables, Map<String, Set<UUID>> poolTables, Set<String> unreachable) {}

  /**
   * The tables of each pool that stopped or started answering since the last watch: a pool that
   * went away puts its tables' passes on hold at once (DEGRADED, naming the pool), and one that
   * came back has them adopt their jobs at once rather than after their backoff.
   */
  private PoolsSeen poolsChanged(FlinkJobs.Observed flink) {
    List<UUID> tables = new ArrayList<>();
    Set<String> unreachable = flink.unreachable().keySet();
    for (String pool : unreachable) {
      if (!lastUnreachable.contains(pool)) {
        if (pool.equals(EVERY_POOL)) {
          poolTables.values().forEach(tables::addAll);
        } else {
          tables.addAll(poolTables.getOrDefault(pool, Set.of()));
        }
      }
    }
    Map<String, Set<UUID>> listedByPool = new HashMap<>(poolTables);
    flink
        .pools()
        .forEach(
            (pool, jobs) -> {
              Set<UUID> listed = new HashSet<>();
              for (FlinkJobs.JobSummary job : jobs) {
                Matcher m = PIPELINE.matcher(job.name());
                if (m.matches() && !job.state().terminal()) {
                  listed.add(UUID.fromString(m.group(1)));
                }
              }
              if (lastUnreachable.contains(pool) || lastUnreachable.contains(EVERY_POOL)) {
                tables.addAll(listed);
              }
              listedByPool.put(pool, listed);
            });
    listedByPool.keySet().removeIf(p -> !flink.pools().containsKey(p) && !unreachable.contains(p));
    return new PoolsSeen(tables, listedByPool, Set.copyOf(unreachable));
  }

  private void watchSafely() {
    try {
      watch();
    } catch (RuntimeException e) {
      log.warn("Watching jobs failed: {}", e.toString());
    }
  }

  /**
   * One round of the loop: the watch, the due rows, then the upkeep (meters, event retention, the
   * sweep). A row made due by a commit (a CREATE, an ALTER) is claimed before the upkeep, not
   * behind it: the sweep of 10,000 settled tables takes a few hundred milliseconds, and the meters'
   * counts scan the store. Rows the sweep makes due are claimed by the round it asks for.
   */
  void safeRun() {
    roundAsked.set(false);
    watchSafely();
    try {
      // Each pass that ends asks for a round, which watches first (on its interval): tables whose
      // jobs changed state (started, failed) go ahead of a backlog (see ReconcileStore.markDue)
      // at the next idle thread instead of waiting for its end.
      fill();
    } catch (RuntimeException e) {
      log.warn("Reconcile round failed: {}", e.toString());
    }
    try {
      metrics.refreshPhases();
    } catch (RuntimeException e) {
      log.debug("Counting tables per phase failed: {}", e.toString());
    }
    pruneEvents();
    try {
      if (sweepWhenDue() > 0) {
        wake();
      }
    } catch (RuntimeException e) {
      log.warn("Sweep of settled tables failed: {}", e.toString());
    }
  }

  /** Event retention, every ten minutes: older than the retention, or beyond the newest N. */
  void pruneEvents() {
    long now = System.nanoTime();
    if (now - lastPrune < Duration.ofMinutes(10).toNanos()) {
      return;
    }
    lastPrune = now;
    try {
      int gone = store.pruneEvents(settings.eventRetention(), settings.eventsPerTable());
      if (gone > 0) {
        log.info("Deleted {} old table events", gone);
      }
    } catch (RuntimeException e) {
      log.warn("Deleting old table events failed: {}", e.toString());
    }
  }

  /** Something changed in the store: look now rather than at the next poll. */
  public void wake() {
    if (loop != null && running && roundAsked.compareAndSet(false, true)) {
      try {
        loop.execute(this::safeRun);
      } catch (RejectedExecutionException e) {
        // Shutting down: no more rounds.
      }
    }
  }

  /**
   * Shutdown, as in a rolling restart: no new round starts; the passes under way get {@link
   * #STOP_GRACE} to finish and release their rows as usual; then every row this replica still holds
   * is given back due now ({@link ReconcileStore#abandon}), so the other replicas take its tables
   * at their next claim instead of after the lease, and the passes still running are interrupted.
   * Whatever those passes still try to write is refused (their tokens are gone); a remote call
   * already sent is what a crash at that moment would leave, which every step is built to survive.
   */
  @Override
  public void stop() {
    running = false;
    if (loop != null) {
      loop.shutdown();
    }
    boolean finished = true;
    if (passes != null) {
      passes.shutdown();
      try {
        finished = passes.awaitTermination(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        finished = false;
        Thread.currentThread().interrupt();
      }
    }
    try {
      int given = store.abandon(owner);
      log.info(
          "Reconciler {} stopping; {} claimed tables given back{}",
          owner,
          given,
          finished ? "" : ", passes still running interrupted");
    } catch (RuntimeException e) {
      log.warn("Reconciler {} stopping; giving back its claims failed: {}", owner, e.toString());
    }
    if (passes != null && !finished) {
      passes.shutdownNow();
      try {
        passes.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (loop != null) {
      loop.shutdownNow();
    }
    if (heartbeats != null) {
      heartbeats.shutdownNow();
    }
    if (looks != null) {
      looks.shutdownNow();
    }
  }

  /** How long a stopping replica lets its passes finish before it gives their rows back. */
  static final Duration STOP_GRACE = Duration.ofSeconds(1);

  @Override
  public boolean isRunning() {
    return running;
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
