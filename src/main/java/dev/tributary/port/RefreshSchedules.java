package dev.tributary.port;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.UUID;

/**
 * The schedules of FULL tables, in a scheduler shared by every replica (Quartz with its JDBC job
 * store, clustered): each firing is delivered once, to one replica, and a firing missed while no
 * replica ran is delivered once when one comes back, not once per missed slot.
 */
public interface RefreshSchedules {

  /**
   * A cron (Quartz syntax, in {@code zone}) when there is one, else a fixed rate of {@code every}
   * from {@code anchor}.
   */
  record Schedule(String cron, Duration every, Instant anchor, ZoneId zone) {}

  /**
   * Makes the table's schedule this one, paused or not; does nothing when it is so already. Cheap
   * enough to call on every pass.
   */
  void ensure(UUID table, Schedule schedule, boolean paused);

  /** Removes the table's schedule; an absent one is success. */
  void remove(UUID table);

  /** When the table's schedule fires next; empty when it has none or it is paused. */
  Optional<Instant> nextFire(UUID table);

  /** Where the scheduler delivers a firing (on the one replica that took it). */
  interface Firings {
    /** The table's schedule fired at {@code at} (for the trigger's {@code scheduled} time). */
    void fired(UUID table, Instant scheduled, Instant at);
  }
}
