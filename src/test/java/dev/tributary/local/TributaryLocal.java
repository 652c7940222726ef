package dev.tributary.local;

import dev.tributary.TributaryApplication;
import org.springframework.boot.SpringApplication;

/**
 * {@code ./mvnw spring-boot:test-run}: the service with PostgreSQL, Kafka, Schema Registry and
 * Flink embedded, and the example catalog fed with live data. Ctrl-C stops all of it.
 */
public final class TributaryLocal {

  private TributaryLocal() {}

  public static void main(String[] args) {
    SpringApplication app = new SpringApplication(TributaryApplication.class);
    app.addInitializers(new LocalStackInitializer());
    app.run(args);
  }
}
