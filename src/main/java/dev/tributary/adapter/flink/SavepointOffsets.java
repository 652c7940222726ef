package dev.tributary.adapter.flink;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the Kafka sources of a stopped job were, read from its savepoint. A Kafka source reader
 * snapshots each split as {@code writeUTF(topic), writeInt(partition), writeLong(nextOffset),
 * writeLong(stoppingOffset)} (the connector's {@code KafkaPartitionSplitSerializer}), and Flink
 * inlines operator state this small into the savepoint's {@code _metadata} file. For an unbounded
 * source the stopping offset is {@code Long.MIN_VALUE}, which makes the pattern unambiguous.
 *
 * <p>This is exact, unlike the offsets the source commits to its consumer group: those are
 * committed asynchronously after each checkpoint, and the commit of the final savepoint of a
 * stopping job is often lost with the job's shutdown. The savepoint is read wherever {@link
 * StateStorage} reaches it: a local file system or S3.
 */
final class SavepointOffsets {

  private static final long NO_STOPPING_OFFSET = Long.MIN_VALUE;

  private SavepointOffsets() {}

  /**
   * The next offset of every partition of {@code topics} in the savepoint, by topic; empty when the
   * savepoint cannot be read here. A topic whose splits are not all found is left out.
   */
  static Optional<Map<String, Map<Integer, Long>>> read(
      StateStorage storage, String savepoint, Set<String> topics) {
    Optional<byte[]> metadata = storage.readMetadata(savepoint);
    if (metadata.isEmpty()) {
      return Optional.empty();
    }
    byte[] bytes = metadata.get();
    Map<String, Map<Integer, Long>> found = new TreeMap<>();
    for (String topic : topics) {
      Map<Integer, Long> offsets = scan(bytes, topic);
      if (!offsets.isEmpty()) {
        found.put(topic, offsets);
      }
    }
    return Optional.of(found);
  }

  /**
   * The next offset of every positioned split of {@code topic} in the bytes; empty if a partition
   * has two different answers. Splits that carry only a start marker (the enumerator's record of a
   * split as first assigned, or a reader that has not fetched yet) give no offset.
   */
  static Map<Integer, Long> scan(byte[] bytes, String topic) {
    byte[] name = topic.getBytes(StandardCharsets.UTF_8);
    Map<Integer, Long> offsets = new TreeMap<>();
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    int record = 2 + name.length + 4 + 8 + 8;
    for (int at = 0; at + record <= bytes.length; at++) {
      if ((buffer.getShort(at) & 0xffff) != name.length || !matches(bytes, at + 2, name)) {
        continue;
      }
      int after = at + 2 + name.length;
      int partition = buffer.getInt(after);
      long next = buffer.getLong(after + 4);
      long stopping = buffer.getLong(after + 12);
      if (stopping != NO_STOPPING_OFFSET || partition < 0) {
        continue; // enumerator state or another structure that names the topic
      }
      if (next < 0) {
        continue; // a marker (earliest, latest, committed): the split as first assigned
      }
      Long previous = offsets.put(partition, next);
      if (previous != null && previous != next) {
        return Map.of(); // two different answers: give none
      }
    }
    return offsets;
  }

  private static boolean matches(byte[] bytes, int from, byte[] name) {
    for (int i = 0; i < name.length; i++) {
      if (bytes[from + i] != name[i]) {
        return false;
      }
    }
    return true;
  }
}
