package dev.tributary.table;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Requests that wait for a refresh to end ({@code GET .../refreshes/{number}?waitSeconds=}), so
 * that a caller (a CI step, a script) need not poll. A waiting request reads its refresh again when
 * this replica's reconciler ends any refresh ({@link #changed}), and at least every {@link
 * #RECHECK}, for the changes another replica's reconciler makes. One monitor serves all waiters: a
 * change wakes each to read its one row, which the cap on waiters ({@code
 * tributary.refresh-waits.max}, each holding a request thread) bounds.
 *
 * <p>Written here because a long poll of one row needs nothing more than a monitor; Spring's
 * asynchronous requests would free the thread but also take every filter of the chain
 * (Server-Timing, audit, request id) through an async dispatch.
 */
@Component
public class RefreshWaits {

  /** The longest wait a request may ask for. */
  public static final int MAX_WAIT_SECONDS = 60;

  /** How often a waiting request reads its refresh again without a change seen here. */
  static final Duration RECHECK = Duration.ofMillis(250);

  private final Object monitor = new Object();
  private final Semaphore waiters;
  private final Duration recheck;
  private long changes; // guarded by monitor

  @Autowired
  RefreshWaits(@Value("${tributary.refresh-waits.max:64}") int max) {
    this(max, RECHECK);
  }

  RefreshWaits(int max, Duration recheck) {
    this.waiters = new Semaphore(max);
    this.recheck = recheck;
  }

  /**
   * A refresh ended in this process: waiting requests read theirs again, once the change is
   * committed if it is written in a transaction.
   */
  void changed() {
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              signal();
            }
          });
    } else {
      signal();
    }
  }

  private void signal() {
    synchronized (monitor) {
      changes++;
      monitor.notifyAll();
    }
  }

  /**
   * What {@code read} answers once the refresh it reads has ended (or is gone: null), or when
   * {@code wait} is up, whichever is first; a 429 when {@code tributary.refresh-waits.max} requests
   * wait already.
   */
  public TableRefresh await(Supplier<TableRefresh> read, Duration wait) {
    if (!waiters.tryAcquire()) {
      throw new ApiException(
              ErrorCode.TOO_MANY_REQUESTS,
              "Too many requests wait for refreshes on this replica; ask again, or without"
                  + " waitSeconds")
          .retryAfter(Duration.ofSeconds(1));
    }
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        long seen;
        synchronized (monitor) {
          seen = changes;
        }
        TableRefresh refresh = read.get();
        long left = deadline - System.nanoTime();
        if (refresh == null || refresh.state().ended() || left <= 0) {
          return refresh;
        }
        long millis = Math.max(1, Math.min(recheck.toMillis(), Duration.ofNanos(left).toMillis()));
        synchronized (monitor) {
          if (changes == seen) {
            monitor.wait(millis);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return read.get();
    } finally {
      waiters.release();
    }
  }
}
