package dev.tributary.table;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Requests that wait for a table to settle ({@code GET
 * .../materialized-tables/{name}?waitSeconds=}): its {@code status.observedGeneration} equal to its
 * {@code metadata.generation}, which the reconciler writes only once the world matches the
 * definition and the table is at rest (RUNNING, STOPPED, FAILED, SUCCEEDED, PENDING). A CI step
 * that applied a change, or a person, asks once instead of polling. A waiting request reads its
 * table again as soon as this replica's reconciler writes the table's status ({@link #changed}),
 * and at least every {@link #RECHECK}, for what another replica writes.
 */
@Component
public class TableWaits {

  /** The longest wait a request may ask for. */
  public static final int MAX_WAIT_SECONDS = Waits.MAX_WAIT_SECONDS;

  /** How often a waiting request reads its table again without a change seen here. */
  static final Duration RECHECK = Duration.ofMillis(250);

  private final Waits waits;

  @Autowired
  TableWaits(@Value("${tributary.table-waits.max:64}") int max) {
    this(max, RECHECK);
  }

  TableWaits(int max, Duration recheck) {
    this.waits =
        new Waits(
            max,
            recheck,
            "Too many requests wait for tables on this replica; ask again, or without"
                + " waitSeconds");
  }

  /** Table {@code id}'s phase, status or row changed here (once committed, in a transaction). */
  public void changed(UUID id) {
    waits.changed(id);
  }

  /**
   * What {@code read} answers once table {@code id} has settled, or when {@code wait} is up,
   * whichever is first; what {@code read} throws (the table dropped: 404) ends the wait. A 429 when
   * {@code tributary.table-waits.max} requests wait already.
   */
  public MaterializedTable await(UUID id, Supplier<MaterializedTable> read, Duration wait) {
    return waits.await(id, read, TableWaits::settled, wait);
  }

  /** Whether the world matches the table's definition, and the table is at rest. */
  public static boolean settled(MaterializedTable t) {
    return t.getObservedGeneration() >= t.getGeneration();
  }
}
