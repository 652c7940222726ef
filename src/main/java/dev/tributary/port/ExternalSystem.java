package dev.tributary.port;

/** The systems Tributary drives. */
public enum ExternalSystem {
  KAFKA,
  SCHEMA_REGISTRY,
  FLINK,
  /** The scheduler of FULL refreshes (Quartz, in the metadata database). */
  SCHEDULER
}
