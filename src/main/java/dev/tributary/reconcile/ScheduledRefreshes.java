package dev.tributary.reconcile;

import dev.tributary.port.RefreshSchedules;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.RefreshSchedule;
import dev.tributary.table.RefreshLedger;
import dev.tributary.table.TableRefresh;
import dev.tributary.table.TableSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A firing of a FULL table's schedule becomes a recorded refresh of the slot it is for (the newest
 * slot at the firing: a firing that comes late, after downtime, is one CATCH_UP run for the newest
 * missed slot), with the partition Flink would compute for that slot; then the table is due. A slot
 * is recorded once, and not while the table's previous refresh is still running.
 */
final class ScheduledRefreshes implements RefreshSchedules.Firings {

  private final ReconcileStore store;
  private final RefreshLedger ledger;

  ScheduledRefreshes(ReconcileStore store, RefreshLedger ledger) {
    this.store = store;
    this.ledger = ledger;
  }

  @Override
  public void fired(UUID id, Instant scheduled, Instant at) {
    Optional<TableSnapshot> table = store.load(id);
    if (table.isEmpty()
        || table.get().deletionRequested()
        || table.get().spec().kind() != TableSpec.Kind.MATERIALIZED_TABLE
        || table.get().spec().stopped()) {
      return; // the reconciler removes or pauses the schedule on its next pass
    }
    MaterializedTableDefinition effective = Defaults.effective(table.get().spec().definition());
    if (effective.refreshMode() != Clauses.RefreshMode.FULL) {
      return;
    }
    RefreshSchedule schedule = RefreshSchedule.of(effective);
    Instant slot = schedule.floor(at);
    // A firing on time is for an instant on the schedule's grid; a misfired one (no replica ran
    // at the slot) is fired once, later, for "now": it runs the newest slot, as a catch-up.
    boolean missed = !schedule.floor(scheduled).equals(scheduled) || scheduled.isBefore(slot);
    TableRefresh.Trigger trigger =
        missed ? TableRefresh.Trigger.CATCH_UP : TableRefresh.Trigger.SCHEDULE;
    Optional<TableRefresh> recorded =
        ledger.request(id, trigger, slot, schedule.partition(slot, effective.options()));
    if (recorded.isPresent()) {
      store.event(
          id,
          "NORMAL",
          "RefreshRequested",
          "Refresh #"
              + recorded.get().number()
              + " "
              + RefreshSteps.describe(recorded.get())
              + (missed
                  ? " (fired at " + at + ": slots missed while no replica ran are run once)"
                  : ""));
      store.markDue(List.of(id));
    } else if (ledger.active(id).isPresent()) {
      store.event(
          id,
          "WARNING",
          "RefreshSkipped",
          "The schedule fired for "
              + slot
              + " while refresh #"
              + ledger.active(id).get().number()
              + " was still running; this slot is skipped (never two refreshes at once)");
    }
  }
}
