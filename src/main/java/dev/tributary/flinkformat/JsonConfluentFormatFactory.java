package dev.tributary.flinkformat;

import org.apache.flink.formats.json.JsonFormatFactory;

/**
 * {@code 'format' = 'json-confluent'}: rows as Flink's {@code json} format writes them (with its
 * defaults and options) in the Confluent wire format.
 */
public final class JsonConfluentFormatFactory extends FramedFormatFactory {

  public static final String IDENTIFIER = "json-confluent";

  public JsonConfluentFormatFactory() {
    super(new JsonFormatFactory(), false);
  }

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }
}
