package dev.tributary.table;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Requests that wait for a row to reach a state instead of polling it: a waiting request reads its
 * row again when this process commits a change to it ({@link #changed} with the row's key), and at
 * least every {@code recheck}, for the changes another replica makes. Each key that has waiters has
 * a monitor of its own, so a change wakes only the requests that wait on its row. A cap on waiters
 * (each holds a request thread) answers the one beyond it with a 429.
 *
 * <p>Written here because a long poll of one row needs nothing more than a monitor per key;
 * Spring's asynchronous requests would free the thread but also take every filter of the chain
 * (Server-Timing, audit, request id) through an async dispatch.
 */
public final class Waits {

  /** The longest wait a request may ask for ({@code waitSeconds}). */
  public static final int MAX_WAIT_SECONDS = 60;

  private final Semaphore waiters;
  private final Duration recheck;
  private final String tooMany;

  /** The keys waited on now; a watch's count of waiters changes only inside the map's compute. */
  private final Map<Object, Watch> watches = new ConcurrentHashMap<>();

  private static final class Watch {
    int waiters;
    long changes; // guarded by this
  }

  /**
   * @param max how many requests may wait at once
   * @param recheck the longest a request waits before it reads its row again unwoken
   * @param tooMany the 429's text, for the request beyond {@code max}
   */
  public Waits(int max, Duration recheck, String tooMany) {
    this.waiters = new Semaphore(max);
    this.recheck = recheck;
    this.tooMany = tooMany;
  }

  /**
   * The row of {@code key} changed in this process: requests waiting on it read it again, once the
   * change is committed if it is written in a transaction.
   */
  public void changed(Object key) {
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              signal(key);
            }
          });
    } else {
      signal(key);
    }
  }

  private void signal(Object key) {
    Watch watch = watches.get(key);
    if (watch != null) {
      synchronized (watch) {
        watch.changes++;
        watch.notifyAll();
      }
    }
  }

  /**
   * What {@code read} answers once {@code done} holds for it, or when {@code wait} is up, whichever
   * is first. What {@code read} throws ends the wait.
   *
   * @throws ApiException a 429 when as many requests wait as the cap allows
   */
  public <T> T await(Object key, Supplier<T> read, Predicate<T> done, Duration wait) {
    if (!waiters.tryAcquire()) {
      throw new ApiException(ErrorCode.TOO_MANY_REQUESTS, tooMany)
          .retryAfter(Duration.ofSeconds(1));
    }
    Watch watch =
        watches.compute(
            key,
            (k, w) -> {
              Watch mine = w == null ? new Watch() : w;
              mine.waiters++;
              return mine;
            });
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        long seen;
        synchronized (watch) {
          seen = watch.changes;
        }
        T value = read.get();
        long left = deadline - System.nanoTime();
        if (done.test(value) || left <= 0) {
          return value;
        }
        long millis = Math.max(1, Math.min(recheck.toMillis(), Duration.ofNanos(left).toMillis()));
        synchronized (watch) {
          if (watch.changes == seen) {
            watch.wait(millis);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return read.get();
    } finally {
      watches.computeIfPresent(key, (k, w) -> --w.waiters == 0 ? null : w);
      waiters.release();
    }
  }

  /**
   * A request's {@code waitSeconds} as a wait: zero when it asks for none.
   *
   * @throws ApiException a 400 outside 0 to {@link #MAX_WAIT_SECONDS}
   */
  public static Duration requested(Integer waitSeconds) {
    if (waitSeconds == null) {
      return Duration.ZERO;
    }
    if (waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "waitSeconds must be between 0 and " + MAX_WAIT_SECONDS + ", not " + waitSeconds);
    }
    return Duration.ofSeconds(waitSeconds);
  }

  /** Keys waited on now. */
  int keys() {
    return watches.size();
  }
}
