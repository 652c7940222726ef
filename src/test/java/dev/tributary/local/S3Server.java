package dev.tributary.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real S3 API server on loopback: s3proxy over a local directory (each bucket a folder), as its
 * own JVM, with one bucket and one key pair. Flink's S3 file system plugin and the service's AWS
 * SDK client both talk to it as they would to S3 or MinIO.
 */
public final class S3Server implements AutoCloseable {

  public static final String BUCKET = "tributary";
  public static final String ACCESS_KEY = "tributary";
  public static final String SECRET_KEY = "tributary-local-secret";
  public static final String REGION = "us-east-1";

  private final ChildJvm process;
  private final URI endpoint;
  private final Path data;

  private S3Server(ChildJvm process, URI endpoint, Path data) {
    this.process = process;
    this.endpoint = endpoint;
    this.data = data;
  }

  public Path data() {
    return data;
  }

  public static S3Server start(Path dir) throws IOException, InterruptedException {
    int port = FreePorts.next();
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.createDirectories(data.resolve(BUCKET));
    Path properties = dir.resolve("s3proxy.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "s3proxy.endpoint=http://127.0.0.1:" + port,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + ACCESS_KEY,
            "s3proxy.credential=" + SECRET_KEY,
            "jclouds.provider=filesystem",
            "jclouds.filesystem.basedir=" + data.toAbsolutePath(),
            ""));
    ChildJvm jvm =
        new ChildJvm(
            "s3proxy",
            ChildJvm.thisJava(),
            List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
            ClusterClassPaths.read("s3proxy"),
            "org.gaul.s3proxy.Main",
            List.of("--properties", properties.toAbsolutePath().toString()),
            Map.of("LOG_LEVEL", "warn"),
            dir);
    jvm.start(() -> listening(port), Duration.ofSeconds(60));
    return new S3Server(jvm, URI.create("http://127.0.0.1:" + port), data);
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public URI endpoint() {
    return endpoint;
  }

  public ChildJvm process() {
    return process;
  }

  /** Flink's settings for this store ({@code s3.*}, read by the S3 file system plugin). */
  Map<String, String> flinkSettings() {
    return Map.of(
        "s3.endpoint",
        endpoint.toString(),
        "s3.path.style.access",
        "true",
        "s3.access-key",
        ACCESS_KEY,
        "s3.secret-key",
        SECRET_KEY);
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }
}
