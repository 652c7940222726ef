package dev.tributary.system;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where the outside world is. Every value can be set from the environment, e.g. {@code
 * TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS} or {@code TRIBUTARY_FLINK_SQL_GATEWAY_URL}.
 */
@ConfigurationProperties("tributary")
public record TributaryProperties(
    @DefaultValue Kafka kafka,
    @DefaultValue SchemaRegistry schemaRegistry,
    @DefaultValue Flink flink) {

  /**
   * The Kafka cluster that holds backing topics. A table's topic is named once, when it is created,
   * from {@code topicNameTemplate}: {@code {catalog}}, {@code {database}} and {@code {table}} are
   * replaced by the table's names (the default, {@code {table}}, is Confluent's rule).
   */
  public record Kafka(
      @DefaultValue("localhost:9092") String bootstrapServers,
      @DefaultValue("10s") Duration requestTimeout,
      @DefaultValue("{table}") String topicNameTemplate) {}

  /** A Confluent-compatible Schema Registry; the URL may carry a path prefix. */
  public record SchemaRegistry(
      @DefaultValue("http://localhost:8081") URI url,
      @DefaultValue("10s") Duration requestTimeout) {}

  /** The Flink SQL Gateway (REST v3) and the JobManager REST API of the session cluster. */
  public record Flink(
      @DefaultValue("http://localhost:8083") URI sqlGatewayUrl,
      @DefaultValue("http://localhost:8081") URI restUrl,
      @DefaultValue("file:///tmp/tributary/savepoints") String savepointDir,
      @DefaultValue("30s") Duration requestTimeout,
      @DefaultValue("2m") Duration statementTimeout,
      @DefaultValue Storage storage,
      String formatJarDir,
      Map<String, Pool> pools) {

    public Flink {
      pools = pools == null ? Map.of() : Map.copyOf(pools);
    }

    /**
     * A compute pool besides the configured cluster ({@code default}), from configuration: {@code
     * tributary.flink.pools.<name>.rest-url}, {@code .sql-gateway-url}, {@code .parallelism},
     * {@code .max-slots}. Such a pool cannot be changed or deleted through the API.
     */
    public record Pool(URI restUrl, URI sqlGatewayUrl, Integer parallelism, Integer maxSlots) {}

    /**
     * How this service reaches the storage Flink keeps checkpoints and savepoints in: a local file
     * system needs nothing; s3:// (and s3a://, s3p://) needs {@code s3.endpoint} for a store other
     * than AWS, and keys unless the AWS default credential chain has them.
     */
    public record Storage(@DefaultValue S3 s3) {}

    public record S3(
        URI endpoint,
        String accessKey,
        String secretKey,
        @DefaultValue("us-east-1") String region,
        @DefaultValue("false") boolean pathStyleAccess) {

      public boolean configured() {
        return endpoint != null || (accessKey != null && !accessKey.isBlank());
      }
    }
  }
}
