package dev.tributary.system;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * With no {@code spring.datasource.url} and {@code tributary.datasource.embedded=true}, the service
 * runs its own PostgreSQL (real binaries, a fresh data directory, gone at exit). Without either it
 * does not start (see {@link MissingDatabaseConfiguration}). Test sources only: the local stack
 * ({@code ./mvnw spring-boot:test-run}) and the tests have it; the production jar and image carry
 * no PostgreSQL binaries (about 116 MB for four platforms).
 */
@Configuration(proxyBeanMethods = false)
@Conditional(MissingDatabaseConfiguration.EmbeddedAskedFor.class)
class EmbeddedPostgresConfiguration {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresConfiguration.class);

  /**
   * Zonky's own shutdown hook would race Spring's and kill the database under Quartz and Hikari;
   * instead the bean is closed by the context, after the data source that depends on it.
   */
  @Bean(destroyMethod = "close")
  EmbeddedPostgres embeddedPostgres() throws IOException {
    EmbeddedPostgres postgres =
        EmbeddedPostgres.builder()
            .setRegisterShutdownHook(false)
            .setCleanDataDirectory(true)
            .start();
    log.info(
        "No spring.datasource.url configured: started embedded PostgreSQL on 127.0.0.1:{}",
        postgres.getPort());
    return postgres;
  }

  @Bean
  DataSource dataSource(EmbeddedPostgres postgres) {
    return DataSourceBuilder.create()
        .type(HikariDataSource.class)
        .url(postgres.getJdbcUrl("postgres", "postgres"))
        .username("postgres")
        .password("postgres")
        .build();
  }
}
