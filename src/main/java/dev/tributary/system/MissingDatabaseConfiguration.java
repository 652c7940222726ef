package dev.tributary.system;

import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * No database configured and no embedded one asked for: the start fails with what to set. One typo
 * in a production URL must not bring up an empty embedded database while jobs and topics keep
 * running without their definitions.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(EmbeddedPostgresConfiguration.NoDatabaseAtAll.class)
class MissingDatabaseConfiguration {

  @Bean
  DataSource dataSource() {
    throw new IllegalStateException(
        "No metadata database is configured. Set SPRING_DATASOURCE_URL (with"
            + " SPRING_DATASOURCE_USERNAME and SPRING_DATASOURCE_PASSWORD) to your PostgreSQL, or"
            + " TRIBUTARY_DATASOURCE_EMBEDDED=true for a throw-away embedded PostgreSQL that starts"
            + " empty every time");
  }
}
