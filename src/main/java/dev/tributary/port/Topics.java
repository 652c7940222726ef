package dev.tributary.port;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/** Kafka topics. Creating a topic that exists and deleting one that is gone both succeed. */
public interface Topics {

  /** Creates the topic if absent; returns what is there afterwards. */
  TopicState ensure(TopicSpec spec);

  Optional<TopicState> describe(String name);

  /**
   * Whether the topic exists, as the cluster's metadata says (not a broker that may not know yet of
   * a topic created a moment ago).
   */
  default boolean exists(String name) {
    return describe(name).isPresent();
  }

  /**
   * Many topics in two round trips (their partitions, then their configs): the state of each that
   * exists, keyed by name; a name without an entry does not exist.
   */
  default Map<String, TopicState> describeAll(Collection<String> names) {
    Map<String, TopicState> found = new HashMap<>();
    for (String name : names) {
      describe(name).ifPresent(state -> found.put(name, state));
    }
    return found;
  }

  /** Sets the given configs; a {@code null} value removes an override. */
  void alterConfigs(String name, Map<String, String> configs);

  void delete(String name);

  /** True when the topic holds at least one record (any partition's end is past its start). */
  boolean hasRecords(String name);

  /**
   * The offsets a consumer group committed, by topic and partition; empty when it committed none. A
   * job's Kafka sources commit their positions under its group at every completed checkpoint and
   * savepoint.
   */
  Map<String, Map<Integer, Long>> committedOffsets(String group);

  /**
   * The broker's {@code transaction.max.timeout.ms}: no transaction of an exactly-once sink may
   * stay open longer, and a checkpoint interval must fit in it.
   */
  Duration transactionMaxTimeout();

  /** Deletes a consumer group's committed offsets; an unknown group is success. */
  void deleteGroup(String group);

  /**
   * The newest committed records of the topic, up to {@code limit}, oldest first; empty if none.
   */
  List<TopicRecord> latest(String name, int limit);

  /**
   * Each partition's end offset as a {@code read_committed} reader sees it (the last stable offset:
   * records before it are decided). A bounded read up to these offsets reads exactly what was
   * committed when they were taken.
   */
  default Map<Integer, Long> endOffsets(String name) {
    throw new UnsupportedOperationException("endOffsets");
  }

  /**
   * How many offsets the topic holds now, summed over its partitions (end minus earliest): what a
   * read from the beginning replays (records, and the transaction markers between them). Empty when
   * the topic does not exist.
   */
  default Optional<Long> retainedOffsets(String name) {
    throw new UnsupportedOperationException("retainedOffsets");
  }

  /**
   * Deletes every record of the topic up to each partition's end (the high watermark): the topic
   * stays, empty, with its configs. Returns how many records went.
   */
  default long truncate(String name) {
    throw new UnsupportedOperationException("truncate");
  }

  /**
   * Reads every committed record of the topic, from each partition's beginning up to its end when
   * the call starts, and gives each to {@code each} (in offset order within a partition).
   */
  default void scan(String name, Consumer<TopicRecord> each) {
    throw new UnsupportedOperationException("scan");
  }

  /**
   * Writes a tombstone (the key with a null value) for each key, to the partition given; returns
   * once every one is acknowledged by the brokers.
   */
  default void tombstones(String name, List<KeyAt> keys) {
    throw new UnsupportedOperationException("tombstones");
  }

  /** A key and the partition it lives in. */
  record KeyAt(int partition, byte[] key) {}

  /** A record as read back: where it is, and its key and value bytes (null for none). */
  record TopicRecord(int partition, long offset, Instant timestamp, byte[] key, byte[] value) {

    /** The key as text, without the Confluent wire-format header if it has one. */
    public String keyText() {
      return text(key);
    }

    /**
     * The schema id of bytes in the Confluent wire format (byte 0, then the id in 4 big-endian
     * bytes); empty for others. Text never starts with byte 0.
     */
    public static OptionalInt schemaIdOf(byte[] bytes) {
      return framed(bytes)
          ? OptionalInt.of(ByteBuffer.wrap(bytes, 1, 4).getInt())
          : OptionalInt.empty();
    }

    /** The bytes without the Confluent header, if they have one. */
    public static byte[] bodyOf(byte[] bytes) {
      return bytes == null || !framed(bytes) ? bytes : Arrays.copyOfRange(bytes, 5, bytes.length);
    }

    private static boolean framed(byte[] bytes) {
      return bytes != null && bytes.length >= 5 && bytes[0] == 0;
    }

    private static String text(byte[] bytes) {
      if (bytes == null) {
        return null;
      }
      int from = framed(bytes) ? 5 : 0;
      return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    }
  }

  /** What a topic should look like; configs are topic-level overrides such as retention.ms. */
  record TopicSpec(String name, int partitions, Map<String, String> configs) {
    public TopicSpec {
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
      }
      configs = Map.copyOf(configs);
    }
  }

  /**
   * A topic as observed. {@code configs} holds only the topic-level overrides; {@code created} is
   * true when this call created it.
   */
  record TopicState(
      String name,
      int partitions,
      int replicationFactor,
      Map<String, String> configs,
      boolean created) {}
}
