/**
 * A Flink table format, {@code json-confluent}: JSON in the Confluent wire format (magic byte 0,
 * the 4-byte big-endian schema id, then the JSON document), which Flink does not ship. Tables with
 * {@code 'value.format' = 'json-registry'} are written and read with it.
 *
 * <p>This package runs inside the Flink cluster, not in the service: it is packaged alone as {@code
 * target/tributary-<version>-flink-format.jar} (for a cluster's {@code lib/}), depends only on
 * Flink and the JDK, and nothing else in Tributary depends on it ({@code ArchitectureTest}).
 */
package dev.tributary.flinkformat;
