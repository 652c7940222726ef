package dev.tributary.flinkformat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * {@code guarded}: another format, read with Confluent's {@code error-handling.mode}. A record the
 * inner format cannot decode is skipped and counted ({@code mode = ignore}, counter {@code
 * tributary_error_handling.skipped}) or fails the job with {@link
 * GuardedDeserializationSchema#MARKER} and the cause ({@code mode = fail}), or is kept as a row
 * with metadata {@code error} and {@code raw} for a dead-letter table ({@code mode = log}, {@link
 * DeadLetterDecodingFormat}). Options: {@code format} (the inner format), {@code mode}, and the
 * inner format's own options under its name ({@code json.fail-on-missing-field}).
 */
public class GuardedFormatFactory implements DeserializationFormatFactory {

  public static final String IDENTIFIER = "guarded";

  static final ConfigOption<String> FORMAT =
      ConfigOptions.key("format").stringType().noDefaultValue().withDescription("Inner format.");

  static final ConfigOption<String> MODE =
      ConfigOptions.key("mode")
          .stringType()
          .defaultValue("fail")
          .withDescription("What an undecodable record does: fail, ignore or log.");

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(FORMAT);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(MODE);
  }

  @Override
  public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
      DynamicTableFactory.Context context, ReadableConfig options) {
    String format =
        options
            .getOptional(FORMAT)
            .orElseThrow(() -> new ValidationException("The guarded format needs 'format'"));
    String mode = options.get(MODE);
    if (!mode.equals("fail") && !mode.equals("ignore") && !mode.equals("log")) {
      throw new ValidationException(
          "The guarded format's 'mode' is fail, ignore or log, not " + mode);
    }
    DeserializationFormatFactory factory =
        FactoryUtil.discoverFactory(
            context.getClassLoader(), DeserializationFormatFactory.class, format);
    Map<String, String> own = new LinkedHashMap<>();
    options
        .toMap()
        .forEach(
            (key, value) -> {
              if (key.startsWith(format + ".")) {
                own.put(key.substring(format.length() + 1), value);
              }
            });
    DecodingFormat<DeserializationSchema<RowData>> inner =
        factory.createDecodingFormat(context, Configuration.fromMap(own));
    if (mode.equals("log")) {
      return new DeadLetterDecodingFormat(inner);
    }
    boolean skip = mode.equals("ignore");
    return new WrappedDecodingFormat(
        inner, decoder -> new GuardedDeserializationSchema(decoder, skip));
  }
}
