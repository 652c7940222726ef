package dev.tributary.local;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Points a Spring context at the {@link LocalStack}. Its settings rank below the command line,
 * system properties and environment variables (so SERVER_PORT or SPRING_DATASOURCE_URL still win)
 * and above application.yml.
 */
public class LocalStackInitializer
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  private static final AtomicInteger CONTEXTS = new AtomicInteger();

  /** "tributary" for the run command; a fresh database for each test context. */
  private static String databaseName(ConfigurableApplicationContext context) {
    boolean test =
        context
                .getEnvironment()
                .getProperty(
                    "org.springframework.boot.test.context.SpringBootTestContextBootstrapper")
            != null;
    return test ? "test_context_" + CONTEXTS.incrementAndGet() : "tributary";
  }

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    var sources = context.getEnvironment().getPropertySources();
    String database = databaseName(context);
    Map<String, Object> properties =
        new LinkedHashMap<>(LocalStack.get().springProperties(database));
    if (!database.equals("tributary")) {
      // Tests refuse what production only counts: a remote call inside a database transaction.
      properties.put("tributary.guard.remote-calls-in-transaction", "fail");
      // Counts (expectations, skipped records) and drift are read at each resync: tests wait on
      // them, so they resync every 10 s rather than the service's 30 s.
      properties.put("tributary.reconciler.resync", "10s");
      // An evolution is done once its new job has run for the readiness window; the tests that
      // wait for one to settle wait 10 s for it, as the fault tests' service processes do, rather
      // than the service's 60 s.
      properties.put("tributary.reconciler.readiness-window", "10s");
    }
    var stack = new MapPropertySource("localStack", properties);
    if (sources.contains(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
      sources.addAfter(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, stack);
    } else {
      sources.addLast(stack);
    }
  }
}
