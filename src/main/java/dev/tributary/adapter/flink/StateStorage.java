package dev.tributary.adapter.flink;

import dev.tributary.system.TributaryProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The storage Flink keeps checkpoints and savepoints in, as this service reaches it: a file system
 * it can read (the embedded stack, a shared volume), or S3 and S3-compatible stores (MinIO,
 * s3proxy) through the AWS SDK with the {@code tributary.flink.storage.s3.*} settings. A location
 * is a URI as Flink writes it ({@code file:/...}, {@code s3://bucket/key}; {@code s3a} and {@code
 * s3p} are the same store); directories on S3 are key prefixes.
 */
final class StateStorage implements AutoCloseable {

  /** An entry directly under a directory: a savepoint or checkpoint directory, or a file. */
  record Entry(String name, String location, Instant modified) {}

  private final TributaryProperties.Flink.S3 settings;
  private S3Client s3;

  StateStorage(TributaryProperties.Flink.S3 settings) {
    this.settings = settings;
  }

  /** A storage that reaches local file systems only (tests of other parts). */
  static StateStorage localOnly() {
    return new StateStorage(null);
  }

  static boolean isS3(String location) {
    String scheme = scheme(location);
    return scheme.equals("s3") || scheme.equals("s3a") || scheme.equals("s3p");
  }

  private static String scheme(String location) {
    try {
      String scheme = URI.create(location).getScheme();
      return scheme == null ? "file" : scheme;
    } catch (IllegalArgumentException e) {
      return "?";
    }
  }

  /**
   * Whether this process can list {@code directory}, asking the store once (a directory that does
   * not exist yet is reachable if its store is).
   */
  boolean reaches(String directory) {
    if (isS3(directory)) {
      if (settings == null) {
        return false;
      }
      try {
        S3Location at = S3Location.of(directory);
        client().listObjectsV2(b -> b.bucket(at.bucket()).prefix(at.prefix()).maxKeys(1));
        return true;
      } catch (SdkException | IllegalArgumentException e) {
        return false;
      }
    }
    return SavepointFiles.local(directory).isPresent();
  }

  /** The file's bytes; empty when it is absent or the store cannot be reached. */
  Optional<byte[]> read(String file) {
    if (isS3(file)) {
      if (settings == null) {
        return Optional.empty();
      }
      try {
        S3Location at = S3Location.of(file);
        return Optional.of(
            client().getObjectAsBytes(b -> b.bucket(at.bucket()).key(at.key())).asByteArray());
      } catch (NoSuchKeyException e) {
        return Optional.empty();
      } catch (SdkException | IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return SavepointFiles.local(file)
        .filter(Files::isReadable)
        .map(
            p -> {
              try {
                return Files.readAllBytes(p);
              } catch (IOException e) {
                return null;
              }
            });
  }

  /** A savepoint's or checkpoint's {@code _metadata}, given its directory or the file itself. */
  Optional<byte[]> readMetadata(String savepoint) {
    String base =
        savepoint.endsWith("/") ? savepoint.substring(0, savepoint.length() - 1) : savepoint;
    if (base.endsWith("/_metadata")) {
      return read(base);
    }
    Optional<byte[]> inside = read(base + "/_metadata");
    return inside.isPresent() ? inside : read(base);
  }

  /** What lies directly under {@code directory}, newest first; empty if it does not exist. */
  List<Entry> list(String directory) {
    if (isS3(directory)) {
      S3Location at = S3Location.of(directory).asDirectory();
      Map<String, Entry> entries = new LinkedHashMap<>();
      for (S3Object object :
          client()
              .listObjectsV2Paginator(b -> b.bucket(at.bucket()).prefix(at.prefix()))
              .contents()) {
        String rest = object.key().substring(at.prefix().length());
        if (rest.isEmpty()) {
          continue;
        }
        String name = rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest;
        Entry seen = entries.get(name);
        if (seen == null || object.lastModified().isAfter(seen.modified())) {
          entries.put(name, new Entry(name, at.uri(name), object.lastModified()));
        }
      }
      return entries.values().stream()
          .sorted(Comparator.comparing(Entry::modified).reversed())
          .toList();
    }
    Path dir = SavepointFiles.local(directory).orElseThrow();
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> children = Files.list(dir)) {
      return children
          .map(p -> new Entry(p.getFileName().toString(), p.toString(), SavepointFiles.modified(p)))
          .sorted(Comparator.comparing(Entry::modified).reversed())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code location} and everything under it; returns whether anything was there. */
  boolean deleteTree(String location) {
    if (isS3(location)) {
      S3Location at = S3Location.of(location).asDirectory();
      List<String> keys = new ArrayList<>();
      for (S3Object object :
          client()
              .listObjectsV2Paginator(b -> b.bucket(at.bucket()).prefix(at.prefix()))
              .contents()) {
        keys.add(object.key());
      }
      // One DELETE per object, not a multi-object delete: S3-compatible stores differ on the
      // checksum header that one needs (Content-MD5 against the SDK's CRC32), and a savepoint or a
      // job's checkpoints are a few dozen objects.
      for (String key : keys) {
        client().deleteObject(b -> b.bucket(at.bucket()).key(key));
      }
      if (!at.prefix().isEmpty()) {
        // A store may keep the prefix itself as an empty "directory" object.
        client().deleteObject(b -> b.bucket(at.bucket()).key(at.prefix()));
      }
      return !keys.isEmpty();
    }
    Path path = SavepointFiles.local(location).orElseThrow();
    if (!Files.exists(path)) {
      return false;
    }
    SavepointFiles.delete(path);
    return true;
  }

  /** Writes an object (S3 only: what the cluster reads, such as the format jar). */
  void write(String location, byte[] bytes, String contentType) {
    S3Location at = S3Location.of(location);
    client()
        .putObject(
            b -> b.bucket(at.bucket()).key(at.key()).contentType(contentType),
            RequestBody.fromBytes(bytes));
  }

  /** Whether the object exists (S3 only). */
  boolean exists(String location) {
    S3Location at = S3Location.of(location);
    try {
      client().headObject(b -> b.bucket(at.bucket()).key(at.key()));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private synchronized S3Client client() {
    if (settings == null) {
      throw new IllegalStateException("No S3 storage is configured (tributary.flink.storage.s3.*)");
    }
    if (s3 == null) {
      AwsCredentialsProvider credentials =
          settings.accessKey() == null || settings.accessKey().isBlank()
              ? DefaultCredentialsProvider.builder().build()
              : StaticCredentialsProvider.create(
                  AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()));
      var builder =
          S3Client.builder()
              .httpClient(UrlConnectionHttpClient.create())
              .region(Region.of(settings.region()))
              .credentialsProvider(credentials)
              .forcePathStyle(settings.pathStyleAccess())
              // S3-compatible stores (MinIO, s3proxy, older ones) do not all take the SDK's
              // default trailing checksums; S3 itself does not require them.
              .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
              .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
      if (settings.endpoint() != null) {
        builder.endpointOverride(settings.endpoint());
      }
      s3 = builder.build();
    }
    return s3;
  }

  @Override
  public synchronized void close() {
    if (s3 != null) {
      s3.close();
    }
  }

  /** {@code s3://bucket/key}: a key names an object, a prefix ending in / a directory. */
  record S3Location(String scheme, String bucket, String key) {

    static S3Location of(String location) {
      URI uri = URI.create(location);
      if (uri.getHost() == null && uri.getAuthority() == null) {
        throw new IllegalArgumentException("No bucket in " + location);
      }
      String bucket = uri.getAuthority();
      String key = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/+", "");
      return new S3Location(uri.getScheme(), bucket, key);
    }

    S3Location asDirectory() {
      return key.isEmpty() || key.endsWith("/") ? this : new S3Location(scheme, bucket, key + "/");
    }

    String prefix() {
      return key;
    }

    String uri(String child) {
      return scheme + "://" + bucket + "/" + asDirectory().key() + child;
    }
  }
}
