package dev.tributary.table;

/** Lifecycle phases of a materialized table, as Confluent Cloud names them. */
public enum Phase {
  PENDING,
  CREATING,
  RUNNING,
  ALTERING,
  DEGRADED,
  STOPPING,
  STOPPED,
  FAILING,
  FAILED,
  DELETING
}
