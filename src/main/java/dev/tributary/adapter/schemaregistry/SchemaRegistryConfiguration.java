package dev.tributary.adapter.schemaregistry;

import dev.tributary.system.HttpClients;
import dev.tributary.system.TributaryProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestClient;

/** Wires the Schema Registry adapter and its health indicator. */
@Configuration(proxyBeanMethods = false)
class SchemaRegistryConfiguration {

  @Bean
  ConfluentSchemaRegistry schemaRegistry(TributaryProperties properties) {
    TributaryProperties.SchemaRegistry registry = properties.schemaRegistry();
    RestClient http =
        HttpClients.restClient(registry.url(), registry.requestTimeout())
            .defaultHeader(
                HttpHeaders.CONTENT_TYPE, ConfluentSchemaRegistry.CONTENT_TYPE.toString())
            .build();
    return new ConfluentSchemaRegistry(http);
  }

  @Bean
  HealthIndicator schemaRegistryHealthIndicator(
      ConfluentSchemaRegistry registry, TributaryProperties properties) {
    return () -> {
      String url = properties.schemaRegistry().url().toString();
      try {
        return Health.up()
            .withDetail("url", url)
            .withDetail("subjects", registry.subjects().size())
            .build();
      } catch (RuntimeException e) {
        return Health.down()
            .withDetail("url", url)
            .withDetail("error", String.valueOf(e.getMessage()))
            .build();
      }
    };
  }
}
