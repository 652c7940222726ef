package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.TributaryApplication;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** With no datasource configured, the service brings its own PostgreSQL and migrates it. */
class EmbeddedDatabaseIT {

  /** The highest migration version in db/, which Flyway must have reached. */
  static String latestMigration() throws IOException {
    try (var files = Files.list(Path.of("db"))) {
      return String.valueOf(
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.matches("V\\d+__.*\\.sql"))
              .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__"))))
              .max()
              .orElseThrow());
    }
  }

  /**
   * Quartz keeps job-store data sources JVM-wide by scheduler name: under the shared name, closing
   * this test's context would close the data source of the test JVM's other schedulers (a FULL
   * table's schedule then reads a closed pool). An argument, so that it wins over application.yml.
   */
  private static final String OWN_SCHEDULER =
      "--spring.quartz.properties.org.quartz.scheduler.instanceName=tributary-embedded-it";

  @Test
  void shouldRefuseToStartWithoutADatabaseUnlessAnEmbeddedOneIsAskedFor() {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(TributaryApplication.class)
                    .properties("server.port=0", "spring.main.register-shutdown-hook=false")
                    .run(OWN_SCHEDULER)
                    .close())
        .hasStackTraceContaining("No metadata database is configured. Set SPRING_DATASOURCE_URL");
  }

  @Test
  void shouldStartOnItsOwnPostgresWhenAskedFor() throws Exception {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(TributaryApplication.class)
            .properties(
                "server.port=0",
                "spring.main.register-shutdown-hook=false",
                "tributary.datasource.embedded=true")
            .run(OWN_SCHEDULER)) {
      EmbeddedPostgres postgres = context.getBean(EmbeddedPostgres.class);
      JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);

      assertThat(postgres.getPort()).isPositive();
      assertThat(
              jdbc.queryForObject(
                  "SELECT max(version::int)::text FROM flyway_schema_history", String.class))
          .isEqualTo(latestMigration());
      assertThat(jdbc.queryForObject("SELECT current_setting('port')", Integer.class))
          .isEqualTo(postgres.getPort());
    }
  }
}
