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
  DELETING,
  /** An INSERT ONCE flow that ran to its end: nothing runs until a full refresh of its table. */
  SUCCEEDED
}
