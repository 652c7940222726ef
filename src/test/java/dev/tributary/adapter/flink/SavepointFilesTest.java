package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A table's savepoint files: the newest kept, the protected kept, all gone with the table. */
class SavepointFilesTest {

  static Path savepoint(Path dir, String name, long modified) throws IOException {
    Path sp = Files.createDirectories(dir.resolve(name));
    Files.writeString(sp.resolve("_metadata"), name);
    Files.setLastModifiedTime(sp, FileTime.fromMillis(modified));
    return sp;
  }

  @Test
  void shouldKeepTheNewestAndTheProtectedAndDeleteTheRest(@TempDir Path dir) throws IOException {
    Path oldest = savepoint(dir, "savepoint-a", 1_000);
    savepoint(dir, "savepoint-b", 2_000);
    savepoint(dir, "savepoint-c", 3_000);
    savepoint(dir, "savepoint-d", 4_000);
    savepoint(dir, "savepoint-e", 5_000);

    assertThat(
            SavepointFiles.prune(
                StateStorage.localOnly(), "file:" + dir, 2, Set.of("file:" + oldest)))
        .hasValue(2);

    try (var left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("savepoint-a", "savepoint-d", "savepoint-e");
    }
  }

  @Test
  void shouldDeleteEverythingOfADroppedTableAndNothingElsewhere(@TempDir Path dir)
      throws IOException {
    Path table = Files.createDirectories(dir.resolve("table"));
    savepoint(table, "savepoint-a", 1_000);

    assertThat(SavepointFiles.deleteAll(StateStorage.localOnly(), "file:" + table)).hasValue(1);
    assertThat(table).doesNotExist();
    assertThat(dir).exists();
    assertThat(SavepointFiles.deleteAll(StateStorage.localOnly(), "s3://bucket/table")).isEmpty();
    assertThat(SavepointFiles.prune(StateStorage.localOnly(), "hdfs:///savepoints/t", 3, Set.of()))
        .isEmpty();
  }
}
