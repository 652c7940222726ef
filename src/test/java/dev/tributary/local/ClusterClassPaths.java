package dev.tributary.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class paths the build resolved for the processes of the {@code cluster} topology ({@code
 * src/test/flink-cluster/classpaths.xml}, run at {@code generate-test-resources}), each a real
 * installation's set of jars and nothing of the service's or the tests'.
 */
final class ClusterClassPaths {

  private ClusterClassPaths() {}

  static Path directory() {
    return Path.of(System.getProperty("flink.cluster.classpaths", "target/flink-cluster"))
        .toAbsolutePath();
  }

  /**
   * {@code lib}, {@code sql-gateway}, {@code s3-fs-presto}, {@code s3proxy} or {@code zookeeper}.
   */
  static String read(String name) {
    Path file = directory().resolve(name + ".classpath");
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(
          "No class path for "
              + name
              + " at "
              + file
              + ". Run './mvnw generate-test-resources' (any build does).");
    }
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
