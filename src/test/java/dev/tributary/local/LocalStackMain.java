package dev.tributary.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The local stack on its own, for a service run as its own process (and killed, and started again):
 * {@code ./mvnw spring-boot:test-run -Dtributary.main=dev.tributary.local.LocalStackMain}. Writes
 * the service's settings as environment variables to {@code target/local-stack.env}, then runs
 * until stopped.
 */
public final class LocalStackMain {

  private LocalStackMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Map<String, String> env = LocalStack.get().environment("tributary");
    Path file = Path.of("target", "local-stack.env");
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        env.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n"))
            + "\n");
    System.out.println("Local stack up; the service's settings are in " + file.toAbsolutePath());
    System.out.println(
        "Start a service on it: set -a; . target/local-stack.env; set +a;"
            + " java -jar target/tributary-*.jar (or ./mvnw spring-boot:run)");
    Thread.currentThread().join();
  }
}
