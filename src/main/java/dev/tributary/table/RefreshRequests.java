package dev.tributary.table;

import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Refresh requests of FULL tables: a manual refresh queued in the ledger (never two at once), and
 * the pages of a table's refreshes. The scheduled ones are queued by the reconciler's firings.
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
    TableRefresh refresh =
        refreshes
            .request(table.getId(), TableRefresh.Trigger.MANUAL, null, partition)
            .orElseThrow(
                () -> {
                  String running =
                      refreshes
                          .active(table.getId())
                          .map(r -> "refresh #" + r.number() + " is " + r.state())
                          .orElse("another refresh was requested at the same moment");
                  return new ApiException(
                      ErrorCode.CONFLICT,
                      "A refresh of "
                          + table.objectName()
                          + " is under way ("
                          + running
                          + "); never two at once. Try again once it has ended");
                });
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        "RefreshRequested",
        "Refresh #"
            + refresh.number()
            + " requested"
            + (partition.isEmpty() ? " (whole table)" : " (partition " + partition + ")"));
    return refresh;
  }

  /** Newest first: at most {@code limit} refreshes numbered below {@code before} (or any). */
  @Transactional(readOnly = true)
  public List<TableRefresh> refreshesBefore(UUID table, Long before, int limit) {
    return refreshes.pageBefore(table, before == null ? Long.MAX_VALUE : before, limit);
  }
}
