package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The looks that passes which have just submitted a job take at a pool's JobManager while the job
 * starts. Each asks for the pool's overview ({@code /jobs/overview}, which Flink answers from the
 * Dispatcher's current state; a job's own {@code /jobs/:id} comes from a cache that the JobManager
 * keeps for {@code web.refresh-interval}, 3 s by default, so it shows a starting job deploying for
 * that long). Passes waiting at once share one look: a look started within {@link #interval} of a
 * pass's question answers it, so a pool gets at most one overview call per interval however many
 * jobs start there. The interval grows with the answer's time (ten times the last call, at least
 * {@link JobSteps#SUBMITTED_POLL}), so that a cluster with many jobs, whose overview is large, is
 * not asked for it more than a tenth of the time.
 *
 * <p>Written here, not taken from a library: it is the single-flight sharing of one REST answer
 * between threads, a few lines over {@link CompletableFuture}.
 */
final class StartingJobs {

  private final FlinkJobs jobs;

  /** The newest look at each pool: when it started, and its answer (or the call under way). */
  private final Map<String, Look> latest = new ConcurrentHashMap<>();

  private record Look(
      long startedNanos, long tookNanos, CompletableFuture<List<JobSummary>> jobs) {}

  StartingJobs(FlinkJobs jobs) {
    this.jobs = jobs;
  }

  /** How long to wait between two looks at {@code pool}. */
  Duration interval(String pool) {
    Look look = latest.get(pool);
    long floor = JobSteps.SUBMITTED_POLL.toNanos();
    return Duration.ofNanos(look == null ? floor : Math.max(floor, 10 * look.tookNanos()));
  }

  /**
   * Every job of {@code pool}, by a look started at most {@link #interval} ago: the one under way
   * or just taken when there is one, else a new one.
   *
   * @throws dev.tributary.port.RemoteSystemException when the JobManager does not answer
   */
  List<JobSummary> overview(String pool) {
    while (true) {
      long now = System.nanoTime();
      Look look = latest.get(pool);
      if (look != null && now - look.startedNanos() <= interval(pool).toNanos()) {
        return answer(look);
      }
      Look mine = new Look(now, 0, new CompletableFuture<>());
      boolean taken =
          look == null ? latest.putIfAbsent(pool, mine) == null : latest.replace(pool, look, mine);
      if (!taken) {
        continue; // another pass started a look just now: share it
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
