package dev.tributary.local;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a topic from the beginning, for tests that check what arrived. */
public final class TopicReader {

  private TopicReader() {}

  /**
   * Values as text, read until at least {@code count} arrived or the timeout passed; {@code
   * readCommitted} hides records of open or aborted transactions. A value in the Confluent wire
   * format (byte 0, a 4-byte schema id) is given without its header, as Confluent's JSON
   * deserializer gives it; text never starts with byte 0.
   */
  public static List<String> values(
      String bootstrapServers, String topic, int count, Duration timeout, boolean readCommitted) {
    return values(bootstrapServers, topic, count, timeout, readCommitted, null);
  }

  /** The same, logging in with SASL/PLAIN and this JAAS configuration when it is not null. */
  public static List<String> values(
      String bootstrapServers,
      String topic,
      int count,
      Duration timeout,
      boolean readCommitted,
      String jaas) {
    Map<String, Object> config = new HashMap<>(config(bootstrapServers, readCommitted));
    if (jaas != null) {
      config.put("security.protocol", "SASL_PLAINTEXT");
      config.put("sasl.mechanism", "PLAIN");
      config.put("sasl.jaas.config", jaas);
    }
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (values.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(text(record.value()));
        }
      }
    }
    return values;
  }

  /** The text of a value, without the Confluent header if it has one; null for a tombstone. */
  public static String text(byte[] value) {
    if (value == null) {
      return null;
    }
    int from = value.length >= 5 && value[0] == 0 ? 5 : 0;
    return new String(value, from, value.length - from, StandardCharsets.UTF_8);
  }

  /** Raw record values (bytes), read committed, until {@code count} arrived or the timeout. */
  public static List<byte[]> bytes(
      String bootstrapServers, String topic, int count, Duration timeout) {
    return records(bootstrapServers, topic, count, timeout).stream()
        .map(ConsumerRecord::value)
        .toList();
  }

  /** Raw records (key and value bytes), read committed, until {@code count} or the timeout. */
  public static List<ConsumerRecord<byte[], byte[]>> records(
      String bootstrapServers, String topic, int count, Duration timeout) {
    Map<String, Object> config = config(bootstrapServers, true);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          records.add(record);
        }
      }
    }
    return records;
  }

  /**
   * What a compacted read of the topic gives now: the newest value per key (as text, without the
   * Confluent header), keys whose newest record is a tombstone left out. Reads every partition up
   * to its end offset, read committed.
   */
  public static Map<String, String> compacted(String bootstrapServers, String topic) {
    Map<String, String> latest = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            config(bootstrapServers, true),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Could not read " + topic + " to its end " + ends);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          String key = text(record.key());
          if (record.value() == null) {
            latest.remove(key);
          } else {
            latest.put(key, text(record.value()));
          }
        }
      }
    }
    return latest;
  }

  /** A consumer of its own group, from the earliest offset. */
  private static Map<String, Object> config(String bootstrapServers, boolean readCommitted) {
    return Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrapServers,
        ConsumerConfig.GROUP_ID_CONFIG,
        "test-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
  }
}
