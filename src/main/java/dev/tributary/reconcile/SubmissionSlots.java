package dev.tributary.reconcile;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many of this replica's passes may be submitting a job to one compute pool's SQL Gateway at
 * once (its session opened and declared, the INSERT run until the job's id comes back); a pass
 * beyond that waits here, first come first served, its topic and subjects already provisioned.
 *
 * <p>Why: a gateway and its JobManager submit jobs faster a few at a time than many at once (8
 * passes submitting at once took 4.4 s a job against 1.9 s for 4, and that apply 175.6 s against
 * 153.8 s), yet with as many pass threads as submissions those threads ran in step. Four jobs
 * submitted, then all four threads created topics and registered subjects while no job was in
 * Flink's hands, about 0.7 s of every 2.5 in the 200-table apply of {@code DeclaredSetBench}. With
 * more pass threads than slots, the next tables are provisioned while the slots are busy, and the
 * threads left over keep noticing jobs that started.
 */
final class SubmissionSlots {

  private static final Logger log = LoggerFactory.getLogger(SubmissionSlots.class);

  private final int perPool;
  private final Map<String, Semaphore> pools = new ConcurrentHashMap<>();

  SubmissionSlots(int perPool) {
    if (perPool < 1) {
      throw new IllegalArgumentException(
          "tributary.reconciler.submissions must be at least 1, not " + perPool);
    }
    this.perPool = perPool;
  }

  /**
   * Whether pool {@code pool}'s slots are all taken or passes wait for one: this replica is
   * submitting a backlog there.
   */
  boolean busy(String pool) {
    Semaphore slots = pools.get(pool);
    return slots != null && (slots.availablePermits() == 0 || slots.hasQueuedThreads());
  }

  /**
   * Runs {@code submission} in one of pool {@code pool}'s slots, waiting for one first; an
   * interrupted wait (the replica shutting down) ends the pass without submitting.
   */
  <T> T in(String pool, Supplier<T> submission) {
    if (perPool == Integer.MAX_VALUE) { // no limit beyond the pass threads (tools and unit tests)
      return submission.get();
    }
    Semaphore slots = pools.computeIfAbsent(pool, p -> new Semaphore(perPool, true));
    long asked = System.nanoTime();
    try {
      slots.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting to submit a job to " + pool, e);
    }
    // The pass's table is in the log line's MDC; DeclaredSetBench dates the job's session by it.
    log.debug(
        "Submitting in a slot of pool {} after {} ms waiting for one",
        pool,
        (System.nanoTime() - asked) / 1_000_000);
    try {
      return submission.get();
    } finally {
      slots.release();
    }
  }
}
