package dev.tributary.local;

import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Points a Spring context at the {@link LocalStack}. Its settings rank below the command line,
 * system properties and environment variables (so SERVER_PORT or SPRING_DATASOURCE_URL still
 * win) and above application.yml.
 */
public class LocalStackInitializer
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    var sources = context.getEnvironment().getPropertySources();
    var stack = new MapPropertySource("localStack", LocalStack.get().springProperties());
    if (sources.contains(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
      sources.addAfter(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, stack);
    } else {
      sources.addLast(stack);
    }
  }
}
