package dev.tributary.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Apicurio Registry as a child process, serving the Confluent Schema Registry API at {@code
 * /apis/ccompat/v7}. Apicurio 3.3 needs Java 21+, found as {@link #findJava()} says; on a machine
 * with only a Java 17 the 3.0 line (which runs on 17 and speaks the same Confluent API) is started
 * instead, and {@link #description()} says which one runs. {@code -Dtributary.local.registry} (or
 * {@code TRIBUTARY_LOCAL_REGISTRY}) {@code =java17} asks for the 3.0 line anyway. A small shell
 * watchdog ends the registry when this JVM dies, even by SIGKILL.
 */
final class ApicurioRegistry implements AutoCloseable {

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

  private final Process process;
  private final URI url;
  private final String description;

  private ApicurioRegistry(Process process, URI url, String description) {
    this.process = process;
    this.url = url;
    this.description = description;
  }

  /** Which registry runs, on which Java, as {@link #runtime()} chose them. */
  /**
   * {@code managementInterface}: whether health is served on Quarkus' separate management port
   * (3.3; 3.0 was built without it and serves health on its main port).
   */
  record Choice(Path jar, Path java, String description, boolean managementInterface) {}

  /**
   * Apicurio 3.3 on a Java 21+ runtime when there is one, else Apicurio 3.0 on this JVM (Java 17):
   * each unpacked by the build ({@code generate-test-resources}) into its own folder.
   */
  static Choice runtime() {
    String asked =
        Optional.ofNullable(System.getProperty("tributary.local.registry"))
            .orElse(System.getenv("TRIBUTARY_LOCAL_REGISTRY"));
    Optional<Path> java21 = "java17".equals(asked) ? Optional.empty() : findJava();
    if (java21.isPresent()) {
      Path home = Path.of(System.getProperty("apicurio.home", "target/apicurio-registry"));
      Path jar = home.resolve("quarkus-run.jar");
      requireUnpacked(jar, home, "apicurio.home");
      return new Choice(
          jar,
          java21.get(),
          "Apicurio Registry 3.3 on Java " + majorVersion(javaHome(java21.get())),
          true);
    }
    return java17("java17".equals(asked) ? "asked for" : "no Java 21+ runtime found for 3.3");
  }

  /** Apicurio 3.0 on this JVM, which runs on Java 17; {@code why} is said in its description. */
  static Choice java17(String why) {
    Path home =
        Path.of(System.getProperty("apicurio.java17.home", "target/apicurio-registry-java17"));
    Path jar = null;
    if (Files.isDirectory(home)) {
      try (Stream<Path> files = Files.list(home)) {
        jar =
            files
                .filter(
                    f ->
                        f.getFileName().toString().matches("apicurio-registry-app-.*-runner\\.jar"))
                .findFirst()
                .orElse(null);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    requireUnpacked(jar, home, "apicurio.java17.home");
    String version =
        jar.getFileName().toString().replaceAll("apicurio-registry-app-(.*)-runner\\.jar", "$1");
    return new Choice(
        jar,
        Path.of(System.getProperty("java.home"), "bin", "java"),
        "Apicurio Registry "
            + version
            + " on Java "
            + Runtime.version().feature()
            + " ("
            + why
            + ")",
        false);
  }

  private static void requireUnpacked(Path jar, Path home, String property) {
    if (jar == null || !Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "Apicurio Registry is not unpacked at "
              + home.toAbsolutePath()
              + ". Run './mvnw generate-test-resources' (any build does), or set -D"
              + property
              + ".");
    }
  }

  String description() {
    return description;
  }

  static ApicurioRegistry start(Path dir) throws IOException, InterruptedException {
    return start(dir, runtime());
  }

  static ApicurioRegistry start(Path dir, Choice runtime) throws IOException, InterruptedException {
    Path jar = runtime.jar();
    Path java = runtime.java();
    int httpPort = FreePorts.next();
    int managementPort = FreePorts.next();
    Path config = dir.resolve("application.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "quarkus.http.host=127.0.0.1",
            "quarkus.http.port=" + httpPort,
            runtime.managementInterface() ? "quarkus.management.host=127.0.0.1" : "",
            runtime.managementInterface() ? "quarkus.management.port=" + managementPort : "",
            "apicurio.storage.kind=sql",
            "apicurio.storage.sql.kind=h2",
            "apicurio.rules.global.compatibility=BACKWARD",
            "quarkus.log.level=WARN",
            ""));
    long parent = ProcessHandle.current().pid();
    // The watchdog: run the registry, and end it when this JVM or the registry is gone.
    String watchdog =
        "\"$0\" \"$@\" & child=$!; trap 'kill $child 2>/dev/null' TERM INT;"
            + " while kill -0 "
            + parent
            + " 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done;"
            + " kill $child 2>/dev/null; wait $child";
    List<String> command = new ArrayList<>(List.of("sh", "-c", watchdog));
    command.addAll(
        List.of(
            java.toString(),
            "-Xmx512m",
            "-Dquarkus.config.locations=" + config.toAbsolutePath(),
            "-jar",
            jar.toAbsolutePath().toString()));
    Path log = dir.resolve("apicurio.log");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    ApicurioRegistry registry =
        new ApicurioRegistry(
            process,
            URI.create("http://127.0.0.1:" + httpPort + "/apis/ccompat/v7"),
            runtime.description());
    int healthPort = runtime.managementInterface() ? managementPort : httpPort;
    registry.awaitReady(URI.create("http://127.0.0.1:" + healthPort + "/health/ready"), log);
    return registry;
  }

  /**
   * A Java 21+ runtime: {@code APICURIO_JAVA_HOME} or {@code -Dapicurio.java.home} if set, else the
   * Temurin 25 JDK of these machines, else any Java 21+ under /usr/lib/jvm, else this JVM; empty
   * when there is none.
   */
  static Optional<Path> findJava() {
    List<Path> candidates = new ArrayList<>();
    Optional.ofNullable(System.getProperty("apicurio.java.home"))
        .map(Path::of)
        .ifPresent(candidates::add);
    Optional.ofNullable(System.getenv("APICURIO_JAVA_HOME"))
        .map(Path::of)
        .ifPresent(candidates::add);
    candidates.add(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64"));
    Path jvms = Path.of("/usr/lib/jvm");
    if (Files.isDirectory(jvms)) {
      try (Stream<Path> all = Files.list(jvms)) {
        all.sorted(Comparator.reverseOrder()).forEach(candidates::add);
      } catch (IOException e) {
        // Fall through to the other candidates.
      }
    }
    candidates.add(Path.of(System.getProperty("java.home")));
    for (Path home : candidates) {
      Path bin = home.resolve("bin/java");
      if (Files.isExecutable(bin) && majorVersion(home) >= 21) {
        return Optional.of(bin);
      }
    }
    return Optional.empty();
  }

  private static Path javaHome(Path bin) {
    return bin.getParent().getParent();
  }

  private static int majorVersion(Path home) {
    Path release = home.resolve("release");
    if (!Files.isRegularFile(release)) {
      return home.equals(Path.of(System.getProperty("java.home")))
          ? Runtime.version().feature()
          : 0;
    }
    try {
      for (String line : Files.readAllLines(release)) {
        if (line.startsWith("JAVA_VERSION=")) {
          String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
          return Integer.parseInt(version.split("[.+-]")[0]);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  private void awaitReady(URI health, Path log) throws InterruptedException, IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Apicurio Registry exited during startup; its log is " + log + ":\n" + tail(log));
      }
      try {
        HttpResponse<Void> response =
            http.send(
                HttpRequest.newBuilder(health).GET().build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      Thread.sleep(250);
    }
    close();
    throw new IllegalStateException(
        "Apicurio Registry was not ready within " + STARTUP_TIMEOUT + "; its log is " + log);
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  URI url() {
    return url;
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
