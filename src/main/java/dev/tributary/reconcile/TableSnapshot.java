package dev.tributary.reconcile;

import dev.tributary.sql.ObjectName;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
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
    long observedGeneration) {}
