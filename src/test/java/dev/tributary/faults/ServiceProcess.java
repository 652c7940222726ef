package dev.tributary.faults;

import dev.tributary.Api;
import dev.tributary.TributaryApplication;
import dev.tributary.local.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The service as its own JVM, started on the local stack's settings (as environment variables, like
 * {@code target/local-stack.env}) and killed with SIGKILL: what a crash does to a real process, not
 * to a fake.
 */
final class ServiceProcess implements AutoCloseable {

  private final Map<String, String> environment;
  private final Path logs;
  private final Path jar;
  private Process process;
  private int port;
  private int starts;

  ServiceProcess(Map<String, String> environment, Path logs) {
    this(environment, logs, null);
  }

  /**
   * With {@code jar}, the packaged service jar (what the image runs: no test classes, no
   * logback-test.xml) instead of the test class path.
   */
  ServiceProcess(Map<String, String> environment, Path logs, Path jar) {
    this.environment = environment;
    this.logs = logs;
    this.jar = jar;
  }

  /** Starts the service and waits until it is ready; returns how long that took. */
  Duration start() throws IOException, InterruptedException {
    long begin = System.nanoTime();
    port = FreePorts.next();
    Files.createDirectories(logs);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx768m", "-XX:TieredStopAtLevel=1"));
    if (jar != null) {
      command.addAll(List.of("-jar", jar.toString()));
    } else {
      command.addAll(List.of("-cp", System.getProperty("java.class.path")));
      command.add(TributaryApplication.class.getName());
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(environment);
    builder.environment().put("SERVER_PORT", String.valueOf(port));
    builder.redirectErrorStream(true);
    builder.redirectOutput(logs.resolve("service-" + ++starts + ".log").toFile());
    process = builder.start();
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The service exited at start; see " + logs);
      }
      try {
        HttpResponse<Void> ready =
            http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (ready.statusCode() == 200) {
          return Duration.ofNanos(System.nanoTime() - begin);
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("The service was not ready within 90 s; see " + logs);
  }

  /** SIGKILL: no shutdown hook, no graceful stop, whatever the service was doing. */
  void kill() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux
    process.waitFor();
  }

  /** SIGTERM, as Kubernetes stops a pod: the service shuts down gracefully; waits for its exit. */
  void terminate() throws InterruptedException {
    process.destroy(); // SIGTERM on Linux
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("The service did not exit within 60 s of SIGTERM");
    }
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  Api api() {
    return new Api(port);
  }

  /** A client with no credential. */
  Api anonymous() {
    return new Api(port, null);
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
