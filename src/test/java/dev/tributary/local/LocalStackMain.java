package dev.tributary.local;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The local stack on its own, for a service run as its own process (and killed, and started again):
 * {@code ./mvnw spring-boot:test-run -Dtributary.main=dev.tributary.local.LocalStackMain}. Writes
 * the service's settings as environment variables to {@code target/local-stack.env}, then runs
 * until stopped.
 */
public final class LocalStackMain {

  private LocalStackMain() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Path file = LocalStack.get().writeEnvironment("tributary");
    System.out.println("Local stack up; the service's settings are in " + file.toAbsolutePath());
    System.out.println(
        "Start a service on it: set -a; . target/local-stack.env; set +a;"
            + " java -jar target/tributary-*.jar (or ./mvnw spring-boot:run)");
    Thread.currentThread().join();
  }
}
