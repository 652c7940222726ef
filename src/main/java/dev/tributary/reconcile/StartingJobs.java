package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * The looks that passes which have just submitted a job take at a pool's JobManager while the job
 * starts. Each asks for the pool's overview ({@code /jobs/overview}, which Flink answers from the
 * Dispatcher's current state; a job's own {@code /jobs/:id} comes from a cache that the JobManager
 * keeps for {@code web.refresh-interval}, 3 s by default, so it shows a starting job deploying for
 * that long). Passes waiting at once share looks: a look that started after the moment a pass names
 * answers it, and a pool has one look under way at a time. A pass's next look starts {@link
 * #interval} after its last one started; the interval grows with the answer's time (four times the
 * last call, at least {@link JobSteps#SUBMITTED_POLL}), so that a cluster with many jobs, whose
 * overview is large, is not asked for it more than a quarter of the time (ten times kept a
 * MiniCluster of a few hundred jobs, 15 ms an overview, at 150 ms between looks: slower than a
 * person polling every 50 ms). At most {@link #WATCHERS} passes watch at once: beyond them the
 * replica is submitting a backlog (an apply of many tables), whose passes leave their jobs to the
 * worker's watch rather than hold a thread each. The pass that stops a job with a savepoint is a
 * watcher too while it polls the savepoint ({@code Transitions.watch}), and looks here for the
 * job's end.
 *
 * <p>Written here, not taken from a library: it is the single-flight sharing of one REST answer
 * between threads, a few lines over {@link CompletableFuture}.
 */
final class StartingJobs {

  /** How many passes of a replica may watch their jobs start at once. */
  static final int WATCHERS = 2;

  private final FlinkJobs jobs;
  private final Semaphore watchers = new Semaphore(WATCHERS);

  /** The newest look at each pool: when it started, and its answer (or the call under way). */
  private final Map<String, Look> latest = new ConcurrentHashMap<>();

  private record Look(
      long startedNanos, long tookNanos, CompletableFuture<List<JobSummary>> jobs) {}

  StartingJobs(FlinkJobs jobs) {
    this.jobs = jobs;
  }

  /** Whether a pass may watch its job start now; if so it calls {@link #done()} after. */
  boolean watch() {
    return watchers.tryAcquire();
  }

  void done() {
    watchers.release();
  }

  /** How long from the start of a pass's look at {@code pool} to the start of its next one. */
  Duration interval(String pool) {
    Look look = latest.get(pool);
    long floor = JobSteps.SUBMITTED_POLL.toNanos();
    return Duration.ofNanos(look == null ? floor : Math.max(floor, 4 * look.tookNanos()));
  }

  /**
   * Every job of {@code pool}, by a look started at {@code notBefore} ({@link System#nanoTime()})
   * or later: the one under way or last taken when it did, else a new one once the one under way
   * (which started too early) has ended.
   *
   * @throws dev.tributary.port.RemoteSystemException when the JobManager does not answer
   */
  List<JobSummary> overview(String pool, long notBefore) {
    while (true) {
      Look look = latest.get(pool);
      if (look != null && look.startedNanos() - notBefore >= 0) {
        return answer(look);
      }
      if (look != null && !look.jobs().isDone()) {
        look.jobs().exceptionally(e -> null).join(); // too early for this pass: the next one
        continue;
      }
      long now = System.nanoTime();
      Look mine = new Look(now, 0, new CompletableFuture<>());
      boolean taken =
          look == null ? latest.putIfAbsent(pool, mine) == null : latest.replace(pool, look, mine);
      if (!taken) {
        continue; // another pass started a look just now
      }
      try {
        List<JobSummary> answered = jobs.overview(pool);
        latest.replace(pool, mine, new Look(now, System.nanoTime() - now, mine.jobs()));
        mine.jobs().complete(answered);
      } catch (RuntimeException e) {
        latest.remove(pool, mine); // the next question asks again
        mine.jobs().completeExceptionally(e);
      }
      return answer(mine);
    }
  }

  private static List<JobSummary> answer(Look look) {
    try {
      return look.jobs().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }
}
