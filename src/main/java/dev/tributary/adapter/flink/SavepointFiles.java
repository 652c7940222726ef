package dev.tributary.adapter.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A table's savepoints and retained checkpoints wherever {@link StateStorage} reaches them (a local
 * file system, S3): the newest few savepoints are kept, all go with the table. Where the storage is
 * out of reach, nothing is deleted, and the caller is told so.
 */
final class SavepointFiles {

  private SavepointFiles() {}

  /**
   * Deletes the savepoints in {@code directory} but the newest {@code keep} and those in {@code
   * protect}; returns how many went, or empty when the storage cannot be reached.
   */
  static Optional<Integer> prune(
      StateStorage storage, String directory, int keep, Set<String> protect) {
    if (!storage.reaches(directory)) {
      return Optional.empty();
    }
    List<StateStorage.Entry> savepoints =
        storage.list(directory).stream().filter(e -> e.name().startsWith("savepoint-")).toList();
    Set<String> kept = protect.stream().map(SavepointFiles::same).collect(Collectors.toSet());
    int deleted = 0;
    for (int i = keep; i < savepoints.size(); i++) {
      if (!kept.contains(same(savepoints.get(i).location()))) {
        storage.deleteTree(savepoints.get(i).location());
        deleted++;
      }
    }
    return Optional.of(deleted);
  }

  /** Deletes the directory with everything in it; empty when the storage cannot be reached. */
  static Optional<Integer> deleteAll(StateStorage storage, String directory) {
    if (!storage.reaches(directory)) {
      return Optional.empty();
    }
    return Optional.of(storage.deleteTree(directory) ? 1 : 0);
  }

  /** One spelling per location: a local path normalized, s3a/s3p as s3, no trailing slash. */
  static String same(String location) {
    Optional<Path> local = StateStorage.isS3(location) ? Optional.empty() : local(location);
    if (local.isPresent()) {
      return local.get().toString();
    }
    String s = location.replaceFirst("^s3[ap]?://", "s3://");
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  static void delete(Path path) {
    try (Stream<Path> tree = Files.walk(path)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Instant modified(Path p) {
    try {
      return Files.getLastModifiedTime(p).toInstant();
    } catch (IOException e) {
      return Instant.EPOCH;
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
