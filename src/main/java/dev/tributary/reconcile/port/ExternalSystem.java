package dev.tributary.reconcile.port;

/** The systems Tributary drives. */
public enum ExternalSystem {
  KAFKA,
  SCHEMA_REGISTRY,
  FLINK
}
