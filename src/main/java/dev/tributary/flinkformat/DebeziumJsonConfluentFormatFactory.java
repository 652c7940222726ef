package dev.tributary.flinkformat;

import org.apache.flink.formats.json.debezium.DebeziumJsonFormatFactory;

/**
 * {@code 'format' = 'debezium-json-confluent'}: changes as Flink's {@code debezium-json} format
 * writes them (before, after, op) in the Confluent wire format; the schema is the envelope's.
 */
public final class DebeziumJsonConfluentFormatFactory extends FramedFormatFactory {

  public static final String IDENTIFIER = "debezium-json-confluent";

  public DebeziumJsonConfluentFormatFactory() {
    super(new DebeziumJsonFormatFactory(), true);
  }

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }
}
