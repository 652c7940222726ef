package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.TributaryApplication;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** With no datasource configured, the service brings its own PostgreSQL and migrates it. */
class EmbeddedDatabaseIT {

  @Test
  void shouldStartOnItsOwnPostgresWhenNoDatasourceIsConfigured() {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(TributaryApplication.class)
            .properties("server.port=0", "spring.main.register-shutdown-hook=false")
            .run()) {
      EmbeddedPostgres postgres = context.getBean(EmbeddedPostgres.class);
      JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);

      assertThat(postgres.getPort()).isPositive();
      assertThat(jdbc.queryForObject("SELECT max(version) FROM flyway_schema_history", String.class))
          .isEqualTo("2");
      assertThat(jdbc.queryForObject("SELECT current_setting('port')", Integer.class))
          .isEqualTo(postgres.getPort());
    }
  }
}
