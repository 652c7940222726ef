package dev.tributary.table;

import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Refresh requests of FULL tables: a manual refresh queued in the ledger (never two at once; one
 * asked for while another is active waits behind it), and the pages of a table's refreshes. The
 * scheduled ones are queued by the reconciler's firings.
 */
@Service
public class RefreshRequests {

  private final RefreshLedger refreshes;
  private final TableWriter writer;

  RefreshRequests(RefreshLedger refreshes, TableWriter writer) {
    this.refreshes = refreshes;
    this.writer = writer;
  }

  /** A manual refresh of a FULL table (the whole table, or one partition), and its event. */
  TableRefresh request(MaterializedTable table, Map<String, String> partition) {
    TableSpec spec = TableSpec.of(table);
    MaterializedTableService.requireMaterialized(table.objectName(), spec);
    MaterializedTableDefinition effective = Defaults.effective(spec.definition());
    if (effective.refreshMode() != Clauses.RefreshMode.FULL) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          table.objectName()
              + " is CONTINUOUS ("
              + Defaults.refreshModeReason(spec.definition())
              + "): its running job keeps it fresh, and a batch refresh beside it would write"
              + " older rows after newer ones. REFRESH applies to FULL tables");
    }
    for (String column : partition.keySet()) {
      if (!effective.partitionedBy().contains(column)) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "PARTITION ("
                + column
                + " = ...) names no partition column of "
                + table.objectName()
                + "; PARTITIONED BY "
                + effective.partitionedBy());
      }
    }
    UUID id = table.getId();
    // A request takes the active slot, or a refresh that will cover it, or waits behind the active
    // one; a race with another request or with the reconciler ending a refresh is looked at again.
    for (int tries = 0; tries < 3; tries++) {
      Optional<TableRefresh> queued =
          refreshes.request(id, TableRefresh.Trigger.MANUAL, null, partition);
      if (queued.isPresent()) {
        event(table, queued.get(), "requested");
        return queued.get();
      }
      Optional<TableRefresh> active = refreshes.active(id);
      if (active.isPresent() && covers(active.get(), partition)) {
        return active.get();
      }
      Optional<TableRefresh> waiting = refreshes.waiting(id);
      if (waiting.isEmpty() && active.isPresent()) {
        waiting = refreshes.requestWaiting(id, partition);
        if (waiting.isPresent()) {
          event(table, waiting.get(), "queued behind refresh #" + active.get().number());
          return waiting.get();
        }
        waiting = refreshes.waiting(id);
      }
      if (waiting.isPresent()) {
        if (!waiting.get().partition().equals(partition)) {
          throw new ApiException(
              ErrorCode.CONFLICT,
              "Refresh #"
                  + waiting.get().number()
                  + " of "
                  + table.objectName()
                  + " ("
                  + describe(waiting.get().partition())
                  + ") already waits for the running one to end; one refresh waits at a time."
                  + " Ask again for "
                  + describe(partition)
                  + " once it has started");
        }
        return waiting.get();
      }
    }
    throw new ApiException(
        ErrorCode.CONFLICT,
        "Refreshes of " + table.objectName() + " were requested at the same moment; try again");
  }

  /**
   * Whether an active refresh answers a new request for this partition: queued with the same
   * partition, and not yet past taking its bounds, so it reads every source row there is now.
   */
  private static boolean covers(TableRefresh active, Map<String, String> partition) {
    return active.state() == TableRefresh.State.QUEUED
        && active.sourceBounds() == null
        && active.partition().equals(partition);
  }

  private static String describe(Map<String, String> partition) {
    return partition.isEmpty() ? "whole table" : "partition " + partition;
  }

  private void event(MaterializedTable table, TableRefresh refresh, String what) {
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        "RefreshRequested",
        "Refresh #" + refresh.number() + " " + what + " (" + describe(refresh.partition()) + ")");
  }

  /** The table's refresh numbered {@code number}. */
  @Transactional(readOnly = true)
  public Optional<TableRefresh> refresh(UUID table, long number) {
    return refreshes.find(table, number);
  }

  /** Newest first: at most {@code limit} refreshes numbered below {@code before} (or any). */
  @Transactional(readOnly = true)
  public List<TableRefresh> refreshesBefore(UUID table, Long before, int limit) {
    return refreshes.pageBefore(table, before == null ? Long.MAX_VALUE : before, limit);
  }
}
