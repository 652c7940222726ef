package dev.tributary.local;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/** Logs one block with every URL of the running local stack. */
@Component
@ConditionalOnProperty(name = "tributary.local.examples", havingValue = "true")
class LocalStackBanner implements ApplicationListener<ApplicationReadyEvent> {

  private static final Logger log = LoggerFactory.getLogger(LocalStackBanner.class);

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web)) {
      return;
    }
    LocalStack stack = LocalStack.ifStarted().orElse(null);
    if (stack == null) {
      return; // this process runs against a stack started elsewhere (target/local-stack.env)
    }
    String api = "http://127.0.0.1:" + web.getWebServer().getPort();
    String envFile;
    try {
      stack.writeEnvironment("tributary");
      envFile = "target/local-stack.env";
    } catch (IOException e) {
      envFile = "not written: " + e.getMessage();
    }
    log.info(
        """

        ---------------------------------------------------------------
         Tributary is running with its local stack
         API             {}
         Swagger UI      {}/swagger-ui.html
         Health          {}/actuator/health
         Flink           {}
         Flink web UI    {}
         SQL Gateway     {}
           {}
         Kafka bootstrap {}
         Schema Registry {} ({})
         PostgreSQL      {}
         Example catalog examples.marketplace (orders, customers, products)
         Admin API key   {} (in target/local-stack/admin-api-key)
         Settings        {} (with every process id)
        ---------------------------------------------------------------""",
        api,
        api,
        api,
        stack.flinkTopology(),
        stack.flinkRestUrl(),
        stack.sqlGatewayUrl(),
        String.join("\n   ", stack.flinkProcesses()),
        stack.kafkaBootstrapServers(),
        stack.registryUrl(),
        stack.registryDescription(),
        stack.jdbcUrl(),
        stack.adminApiKey(),
        envFile);
  }
}
