package dev.tributary.reconcile;

import dev.tributary.sql.ObjectName;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import java.util.UUID;

/**
 * One table as a reconcile pass sees it: desired state (spec, generation, the version number of its
 * current definition, deletion, the topic it owns) and observed state (phase, status).
 */
public record TableSnapshot(
    UUID id,
    ObjectName name,
    String topic,
    long generation,
    long definitionVersion,
    TableSpec spec,
    boolean deletionRequested,
    Phase phase,
    TableStatus status,
    long observedGeneration,
    UUID flowOf) {

  public TableSnapshot(
      UUID id,
      ObjectName name,
      String topic,
      long generation,
      long definitionVersion,
      TableSpec spec,
      boolean deletionRequested,
      Phase phase,
      TableStatus status,
      long observedGeneration) {
    this(
        id,
        name,
        topic,
        generation,
        definitionVersion,
        spec,
        deletionRequested,
        phase,
        status,
        observedGeneration,
        null);
  }

  /** The same row with another observed status (what the sweep wrote). */
  public TableSnapshot withStatus(TableStatus newStatus) {
    return new TableSnapshot(
        id,
        name,
        topic,
        generation,
        definitionVersion,
        spec,
        deletionRequested,
        phase,
        newStatus,
        observedGeneration,
        flowOf);
  }

  /** A flow of a pipeline table (its own job, writing into the table's topic). */
  public boolean flow() {
    return flowOf != null;
  }
}
