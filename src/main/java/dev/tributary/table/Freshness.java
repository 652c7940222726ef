package dev.tributary.table;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.port.RefreshSchedules;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * How fresh a table is, as a promise kept or not: its refresh mode and why, its last and next
 * refresh, and the measured lag (FULL: now minus the bound of the last successful refresh, the
 * instant its sources were read up to; CONTINUOUS: now minus the last completed checkpoint, when
 * the rows before it were committed). A lag of more than twice the FRESHNESS (one interval of slack
 * for the refresh or checkpoint itself) breaks the promise.
 */
@Component
public class Freshness {

  private final RefreshLedger ledger;
  private final RefreshSchedules schedules;

  Freshness(RefreshLedger ledger, RefreshSchedules schedules) {
    this.ledger = ledger;
    this.schedules = schedules;
  }

  /** What GET, SHOW and information_schema say about a table's freshness. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Summary(
      String refreshMode,
      String reason,
      @Schema(description = "The declared (or default) FRESHNESS, spelled as in the spec")
          Clauses.Interval freshness,
      Instant lastRefresh,
      Instant freshAsOf,
      Instant nextRefresh,
      Double lagSeconds,
      Boolean fresh,
      Long activeRefresh,
      String activeRefreshState) {}

  /** Null for a pipeline table. */
  public Summary of(MaterializedTable table, TableSpec spec) {
    if (spec.kind() != TableSpec.Kind.MATERIALIZED_TABLE) {
      return null;
    }
    MaterializedTableDefinition effective = Defaults.effective(spec.definition());
    String reason = Defaults.refreshModeReason(spec.definition());
    Duration freshness = effective.freshness().toDuration();
    if (effective.refreshMode() == Clauses.RefreshMode.FULL) {
      Optional<TableRefresh> last = ledger.lastSucceeded(table.getId());
      Optional<TableRefresh> active = ledger.active(table.getId());
      Instant asOf = last.map(TableRefresh::boundsAt).orElse(null);
      Double lag = lag(asOf);
      return new Summary(
          "FULL",
          reason,
          effective.freshness(),
          last.map(TableRefresh::endedAt).orElse(null),
          asOf,
          spec.stopped() ? null : schedules.nextFire(table.getId()).orElse(null),
          lag,
          lag == null ? null : lag <= 2.0 * freshness.toMillis() / 1000,
          active.map(TableRefresh::number).orElse(null),
          active.map(r -> r.state().name()).orElse(null));
    }
    TableStatus.RestorePoint checkpoint = table.status().checkpoint();
    Instant asOf = checkpoint == null ? null : checkpoint.completedAt();
    boolean running = table.getPhase() == Phase.RUNNING;
    Double lag = running ? lag(asOf) : null;
    return new Summary(
        "CONTINUOUS",
        reason,
        effective.freshness(),
        asOf,
        asOf,
        null,
        lag,
        lag == null ? null : lag <= 2.0 * freshness.toMillis() / 1000 + 10,
        null,
        null);
  }

  private static Double lag(Instant asOf) {
    return asOf == null ? null : Duration.between(asOf, Instant.now()).toMillis() / 1000.0;
  }
}
