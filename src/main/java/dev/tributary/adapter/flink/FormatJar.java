package dev.tributary.adapter.flink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * The service's own Flink format jar (the {@code json-confluent}, {@code debezium-json-confluent}
 * and {@code guarded} formats and the expectations function: package {@code
 * dev.tributary.flinkformat}), delivered to the cluster rather than installed in its {@code lib/}:
 * built from this process's own classes, uploaded once to {@code tributary.flink.format-jar-dir}
 * under a name that carries its content hash, and added to every SQL Gateway session the service
 * opens ({@code ADD JAR}), so each job ships it. A cluster that lost the object gets it again: the
 * upload is checked at most once a minute.
 *
 * <p>Written here rather than taken from the build: the service in its container has no build
 * output, and the jar must be the one that matches the running service's classes.
 */
final class FormatJar {

  static final String PACKAGE_PATH = "dev/tributary/flinkformat/";
  private static final String FACTORIES =
      "META-INF/services/org.apache.flink.table.factories.Factory";
  private static final Duration RECHECK = Duration.ofMinutes(1);

  private final StateStorage storage;
  private final String location;
  private final byte[] bytes;
  private final Cached<String> uploaded;

  FormatJar(StateStorage storage, String directory, Clock clock) {
    this.storage = storage;
    this.bytes = build();
    String dir = directory.endsWith("/") ? directory : directory + "/";
    this.location = dir + "tributary-flink-format-" + hash(bytes) + ".jar";
    this.uploaded = new Cached<>(RECHECK, clock);
  }

  /** Where the jar is; uploads it first when the store does not hold it (checked once a minute). */
  String ensureUploaded() {
    return uploaded.get(
        () -> {
          if (!storage.exists(location)) {
            storage.write(location, bytes, "application/java-archive");
          }
          return location;
        });
  }

  String location() {
    return location;
  }

  /** The package's classes and its factory registrations, in a fixed order with fixed times. */
  static byte[] build() {
    Map<String, byte[]> entries = new TreeMap<>();
    PathMatchingResourcePatternResolver resolver =
        new PathMatchingResourcePatternResolver(FormatJar.class.getClassLoader());
    try {
      for (Resource r : resolver.getResources("classpath*:" + PACKAGE_PATH + "**/*.class")) {
        String url = r.getURL().toString();
        String name = url.substring(url.lastIndexOf(PACKAGE_PATH));
        try (InputStream in = r.getInputStream()) {
          entries.put(name, in.readAllBytes());
        }
      }
      StringBuilder services = new StringBuilder();
      for (Resource r : resolver.getResources("classpath*:" + FACTORIES)) {
        try (InputStream in = r.getInputStream()) {
          for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (line.strip().startsWith(PACKAGE_PATH.replace('/', '.'))) {
              services.append(line.strip()).append('\n');
            }
          }
        }
      }
      if (entries.isEmpty() || services.isEmpty()) {
        throw new IllegalStateException(
            "The format classes (" + PACKAGE_PATH + ") are not on this service's class path");
      }
      entries.put(FACTORIES, services.toString().getBytes(StandardCharsets.UTF_8));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (JarOutputStream jar = new JarOutputStream(out)) {
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
          JarEntry entry = new JarEntry(e.getKey());
          entry.setTime(0);
          jar.putNextEntry(entry);
          jar.write(e.getValue());
          jar.closeEntry();
        }
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String hash(byte[] bytes) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(bytes))
          .substring(0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
