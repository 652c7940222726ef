package dev.tributary.flinkformat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.SerializationFormatFactory;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * One of Flink's JSON formats, framed as the Confluent wire format. The inner format does the
 * encoding and takes its own options (under this format's prefix); this adds the header.
 *
 * <p>Writing needs {@code url}, {@code subject} and {@code schema}: the writer resolves the
 * schema's id under the subject when it opens (registering it if the subject lacks it, as
 * Confluent's serializers do) and writes that id in front of every record. A submitter that
 * resolved the id itself just before passes it as {@code schema-id}, and the writer opens without
 * asking the registry (two round trips on the job's own time). Reading needs none: it checks the
 * header and decodes what follows.
 */
abstract class FramedFormatFactory
    implements SerializationFormatFactory, DeserializationFormatFactory {

  static final ConfigOption<String> URL =
      ConfigOptions.key("url")
          .stringType()
          .noDefaultValue()
          .withDescription("Base URL of the Confluent-compatible schema registry (writing).");
  static final ConfigOption<String> SUBJECT =
      ConfigOptions.key("subject")
          .stringType()
          .noDefaultValue()
          .withDescription("Subject the schema is registered under (writing).");
  static final ConfigOption<String> SCHEMA =
      ConfigOptions.key("schema")
          .stringType()
          .noDefaultValue()
          .withDescription("The JSON Schema of the records, as registered (writing).");
  static final ConfigOption<Integer> SCHEMA_ID =
      ConfigOptions.key("schema-id")
          .intType()
          .noDefaultValue()
          .withDescription(
              "The registry's id of 'schema' under 'subject', resolved by the submitter (writing);"
                  + " without it the writer resolves it when it opens.");

  private final SerializationFormatFactory innerWriter;
  private final DeserializationFormatFactory innerReader;
  private final boolean envelope;

  /** {@code envelope}: the inner format writes a change envelope whose {@code after} is the row. */
  <F extends SerializationFormatFactory & DeserializationFormatFactory> FramedFormatFactory(
      F inner, boolean envelope) {
    this.innerWriter = inner;
    this.innerReader = inner;
    this.envelope = envelope;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    Set<ConfigOption<?>> options = new HashSet<>(innerWriter.optionalOptions());
    options.addAll(innerReader.optionalOptions());
    options.addAll(Set.of(URL, SUBJECT, SCHEMA, SCHEMA_ID));
    return options;
  }

  @Override
  public EncodingFormat<SerializationSchema<RowData>> createEncodingFormat(
      DynamicTableFactory.Context context, ReadableConfig options) {
    FactoryUtil.validateFactoryOptions(this, options);
    String url = required(options, URL);
    String subject = required(options, SUBJECT);
    String schema = required(options, SCHEMA);
    Integer schemaId = options.getOptional(SCHEMA_ID).orElse(null);
    EncodingFormat<SerializationSchema<RowData>> inner =
        innerWriter.createEncodingFormat(context, options);
    return new EncodingFormat<>() {
      @Override
      public SerializationSchema<RowData> createRuntimeEncoder(
          DynamicTableSink.Context sink, DataType physicalType) {
        return new FramedSerializationSchema(
            inner.createRuntimeEncoder(sink, physicalType),
            (RowType) physicalType.getLogicalType(),
            envelope,
            url,
            subject,
            schema,
            schemaId);
      }

      @Override
      public Map<String, DataType> listWritableMetadata() {
        return inner.listWritableMetadata();
      }

      @Override
      public void applyWritableMetadata(List<String> keys) {
        inner.applyWritableMetadata(keys);
      }

      @Override
      public ChangelogMode getChangelogMode() {
        return inner.getChangelogMode();
      }
    };
  }

  @Override
  public DecodingFormat<DeserializationSchema<RowData>> createDecodingFormat(
      DynamicTableFactory.Context context, ReadableConfig options) {
    FactoryUtil.validateFactoryOptions(this, options);
    DecodingFormat<DeserializationSchema<RowData>> inner =
        innerReader.createDecodingFormat(context, options);
    return new WrappedDecodingFormat(inner, FramedDeserializationSchema::new);
  }

  private String required(ReadableConfig options, ConfigOption<String> option) {
    return options
        .getOptional(option)
        .orElseThrow(
            () ->
                new ValidationException(
                    "The "
                        + factoryIdentifier()
                        + " format needs '"
                        + option.key()
                        + "' to write records (the registry, subject and schema they carry)"));
  }
}
