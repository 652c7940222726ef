package dev.tributary.plan;

import dev.tributary.sql.ObjectName;

/** What a database may take of a compute pool, checked when a change is submitted. */
public interface PoolQuotas {

  /**
   * Refuses ({@code QUOTA_EXCEEDED}, 409, with the quota, the use and the request) placing {@code
   * table} on {@code pool} when its database would then hold more tables there, or take more task
   * slots there ({@code slots} for the table's job, 0 when it runs none), than its quota allows.
   * The table itself is not counted among what the database uses already.
   */
  void require(ObjectName table, String pool, int slots);

  /**
   * {@link #require} again in the caller's transaction, once the table's row is written, and the
   * pool's own budget ({@code maxSlots}) counted from the tables placed there: one transaction at a
   * time per pool, so that of two submits that both passed the plan's checks for the last room, the
   * second to commit is refused ({@code QUOTA_EXCEEDED} or {@code POOL_FULL}). Nothing to do
   * without a quota or a budget.
   */
  default void requireAtCommit(ObjectName table, String pool, int slots) {}
}
