package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Source positions out of savepoint bytes laid out as the Kafka connector writes its splits. */
class SavepointOffsetsTest {

  static byte[] metadata(boolean withSecondAnswer) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(new byte[] {1, 2, 3, 4});
    // Enumerator state: topic, partition, assignment status; then a split as first assigned.
    out.writeUTF("orders");
    out.writeInt(0);
    out.writeInt(1);
    out.writeUTF("orders");
    out.writeInt(0);
    out.writeLong(-2);
    out.writeLong(Long.MIN_VALUE);
    // Reader state: two splits of "orders" and one of another topic whose name contains it.
    for (int p = 0; p < 2; p++) {
      out.writeInt(0); // serializer version
      out.writeInt(26);
      out.writeUTF("orders");
      out.writeInt(p);
      out.writeLong(100L + p);
      out.writeLong(Long.MIN_VALUE);
    }
    out.writeUTF("xorders");
    out.writeInt(0);
    out.writeLong(5);
    out.writeLong(Long.MIN_VALUE);
    if (withSecondAnswer) {
      out.writeUTF("orders");
      out.writeInt(0);
      out.writeLong(7);
      out.writeLong(Long.MIN_VALUE);
    }
    return bytes.toByteArray();
  }

  @Test
  void shouldFindTheNextOffsetOfEveryPartitionOfATopic() throws IOException {
    assertThat(SavepointOffsets.scan(metadata(false), "orders"))
        .isEqualTo(Map.of(0, 100L, 1, 101L));
    assertThat(SavepointOffsets.scan(metadata(false), "xorders")).isEqualTo(Map.of(0, 5L));
    assertThat(SavepointOffsets.scan(metadata(false), "customers")).isEmpty();
  }

  @Test
  void shouldGiveNoAnswerRatherThanAnAmbiguousOne() throws IOException {
    assertThat(SavepointOffsets.scan(metadata(true), "orders")).isEmpty();
  }

  @Test
  void shouldReadASavepointDirectoryAndRefuseWhatItCannotReach(@TempDir Path dir)
      throws IOException {
    Files.write(dir.resolve("_metadata"), metadata(false));

    assertThat(SavepointOffsets.read(StateStorage.localOnly(), "file:" + dir, Set.of("orders")))
        .hasValue(Map.of("orders", Map.of(0, 100L, 1, 101L)));
    assertThat(
            SavepointOffsets.read(
                StateStorage.localOnly(), "s3://bucket/savepoint-1", Set.of("orders")))
        .isEmpty();
    assertThat(
            SavepointOffsets.read(
                StateStorage.localOnly(), "file:" + dir.resolve("gone"), Set.of("orders")))
        .isEmpty();
  }

  @Test
  void shouldReadTheSourcePositionFromARealFlinkSavepoint() throws IOException {
    // _metadata of a savepoint that Flink 2.2.1 took of a job reading one Kafka partition.
    byte[] real =
        Files.readAllBytes(Path.of("src/test/resources/flink-2.2-savepoint-metadata.bin"));

    assertThat(SavepointOffsets.scan(real, "examples.marketplace.orders"))
        .isEqualTo(Map.of(0, 57L));
  }
}
