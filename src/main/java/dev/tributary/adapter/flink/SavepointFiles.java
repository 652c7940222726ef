package dev.tributary.adapter.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A table's savepoints on a file system this process can read (the local stack, or a volume shared
 * with the cluster): the newest few are kept, all go with the table. Elsewhere (s3://, hdfs://)
 * nothing is deleted, and the caller is told so.
 */
final class SavepointFiles {

  private SavepointFiles() {}

  /**
   * Deletes the savepoints in {@code directory} but the newest {@code keep} and those in {@code
   * protect}; returns how many went, or empty when the directory is not on a readable file system.
   */
  static Optional<Integer> prune(String directory, int keep, Set<String> protect) {
    Optional<Path> dir = local(directory);
    if (dir.isEmpty()) {
      return Optional.empty();
    }
    if (!Files.isDirectory(dir.get())) {
      return Optional.of(0);
    }
    List<Path> savepoints;
    try (Stream<Path> entries = Files.list(dir.get())) {
      savepoints =
          entries
              .filter(p -> p.getFileName().toString().startsWith("savepoint-"))
              .sorted(Comparator.comparing(SavepointFiles::modified).reversed())
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<Path> kept =
        protect.stream()
            .map(SavepointFiles::local)
            .flatMap(Optional::stream)
            .collect(Collectors.toSet());
    int deleted = 0;
    for (int i = keep; i < savepoints.size(); i++) {
      if (!kept.contains(savepoints.get(i))) {
        delete(savepoints.get(i));
        deleted++;
      }
    }
    return Optional.of(deleted);
  }

  /** Deletes the directory with everything in it; empty when it is not on a readable one. */
  static Optional<Integer> deleteAll(String directory) {
    Optional<Path> dir = local(directory);
    if (dir.isEmpty()) {
      return Optional.empty();
    }
    if (!Files.exists(dir.get())) {
      return Optional.of(0);
    }
    delete(dir.get());
    return Optional.of(1);
  }

  private static void delete(Path path) {
    try (Stream<Path> tree = Files.walk(path)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }

  static Optional<Path> local(String location) {
    try {
      URI uri = URI.create(location);
      if (uri.getScheme() == null) {
        return Optional.of(Path.of(location).normalize());
      }
      return "file".equals(uri.getScheme())
          ? Optional.of(Path.of(uri.getPath()).normalize())
          : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
