package dev.tributary.adapter.kafka;

import dev.tributary.system.TributaryProperties;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the Kafka adapter and its health indicator. */
@Configuration(proxyBeanMethods = false)
class KafkaConfiguration {

  @Bean(destroyMethod = "close")
  Admin kafkaAdmin(TributaryProperties properties) {
    TributaryProperties.Kafka kafka = properties.kafka();
    int timeoutMs = (int) kafka.requestTimeout().toMillis();
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            AdminClientConfig.CLIENT_ID_CONFIG,
            "tributary-admin",
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            timeoutMs,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            timeoutMs));
  }

  @Bean
  KafkaTopics kafkaTopics(Admin kafkaAdmin, TributaryProperties properties) {
    TributaryProperties.Kafka kafka = properties.kafka();
    return new KafkaTopics(
        kafkaAdmin,
        kafka.requestTimeout(),
        () -> readConsumer(kafka),
        () -> tombstoneProducer(kafka));
  }

  /**
   * A consumer for bounded reads of committed records (a refresh's scan, a table's latest rows).
   */
  static KafkaConsumer<byte[], byte[]> readConsumer(TributaryProperties.Kafka kafka) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ConsumerConfig.CLIENT_ID_CONFIG,
            "tributary-preview",
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            // Reads end at the end offsets taken first: waiting for more data is wasted.
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            50,
            ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) kafka.requestTimeout().toMillis(),
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            (int) kafka.requestTimeout().toMillis()),
        new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
  }

  /** An idempotent producer for a refresh's tombstones. */
  static KafkaProducer<byte[], byte[]> tombstoneProducer(TributaryProperties.Kafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrapServers(),
            ProducerConfig.CLIENT_ID_CONFIG,
            "tributary-refresh",
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) kafka.requestTimeout().toMillis(),
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            (int) kafka.requestTimeout().toMillis() * 2),
        new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  @Bean
  HealthIndicator kafkaHealthIndicator(KafkaTopics topics, TributaryProperties properties) {
    return () -> {
      try {
        return Health.up()
            .withDetail("clusterId", topics.clusterId())
            .withDetail("bootstrapServers", properties.kafka().bootstrapServers())
            .build();
      } catch (RuntimeException e) {
        return Health.down()
            .withDetail("bootstrapServers", properties.kafka().bootstrapServers())
            .withDetail("error", String.valueOf(e.getMessage()))
            .build();
      }
    };
  }
}
