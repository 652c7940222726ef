package dev.tributary.adapter.flink;

import dev.tributary.system.HttpClients;
import dev.tributary.system.TributaryProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/** Wires the Flink adapters (SQL Gateway and JobManager REST) and their health indicator. */
@Configuration(proxyBeanMethods = false)
class FlinkConfiguration {

  @Bean
  GatewayFlinkSql flinkSql(TributaryProperties properties) {
    TributaryProperties.Flink flink = properties.flink();
    return new GatewayFlinkSql(
        HttpClients.restClient(flink.sqlGatewayUrl(), flink.requestTimeout()).build(),
        flink.statementTimeout());
  }

  @Bean
  RestFlinkJobs flinkJobs(TributaryProperties properties) {
    TributaryProperties.Flink flink = properties.flink();
    return new RestFlinkJobs(
        HttpClients.restClient(flink.restUrl(), flink.requestTimeout()).build());
  }

  @Bean
  HealthIndicator flinkHealthIndicator(
      GatewayFlinkSql sql, RestFlinkJobs jobs, TributaryProperties properties) {
    return () -> {
      Health.Builder health = Health.up();
      health.withDetail("restUrl", properties.flink().restUrl().toString());
      health.withDetail("sqlGatewayUrl", properties.flink().sqlGatewayUrl().toString());
      try {
        JsonNode cluster = jobs.clusterOverview();
        health.withDetail("flinkVersion", cluster.path("flink-version").asString());
        health.withDetail("taskManagers", cluster.path("taskmanagers").asInt());
        health.withDetail("slotsAvailable", cluster.path("slots-available").asInt());
        health.withDetail("sqlGateway", sql.info());
        return health.build();
      } catch (RuntimeException e) {
        return health.down().withDetail("error", String.valueOf(e.getMessage())).build();
      }
    };
  }
}
