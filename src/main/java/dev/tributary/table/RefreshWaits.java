package dev.tributary.table;

import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Requests that wait for a refresh to end ({@code GET .../refreshes/{number}?waitSeconds=}), so
 * that a caller (a CI step, a script) need not poll. A waiting request reads its refresh again when
 * this replica's reconciler ends any refresh ({@link #changed}), and at least every {@link
 * #RECHECK}, for the changes another replica's reconciler makes ({@link Waits}, with one key for
 * all refreshes: a change wakes each waiter to read its one row, which the cap on waiters, {@code
 * tributary.refresh-waits.max}, bounds).
 */
@Component
public class RefreshWaits {

  /** The longest wait a request may ask for. */
  public static final int MAX_WAIT_SECONDS = Waits.MAX_WAIT_SECONDS;

  /** How often a waiting request reads its refresh again without a change seen here. */
  static final Duration RECHECK = Duration.ofMillis(250);

  private static final Object REFRESHES = "refreshes";

  private final Waits waits;

  @Autowired
  RefreshWaits(@Value("${tributary.refresh-waits.max:64}") int max) {
    this(max, RECHECK);
  }

  RefreshWaits(int max, Duration recheck) {
    this.waits =
        new Waits(
            max,
            recheck,
            "Too many requests wait for refreshes on this replica; ask again, or without"
                + " waitSeconds");
  }

  /**
   * A refresh ended in this process: waiting requests read theirs again, once the change is
   * committed if it is written in a transaction.
   */
  void changed() {
    waits.changed(REFRESHES);
  }

  /**
   * What {@code read} answers once the refresh it reads has ended (or is gone: null), or when
   * {@code wait} is up, whichever is first; a 429 when {@code tributary.refresh-waits.max} requests
   * wait already.
   */
  public TableRefresh await(Supplier<TableRefresh> read, Duration wait) {
    return waits.await(REFRESHES, read, r -> r == null || r.state().ended(), wait);
  }
}
