package dev.tributary.adapter.flink;

import dev.tributary.system.HttpClients;
import dev.tributary.system.TributaryProperties;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/** Wires the Flink adapters (SQL Gateway and JobManager REST) and their health indicator. */
@Configuration(proxyBeanMethods = false)
class FlinkConfiguration {

  @Bean
  StateStorage flinkStateStorage(TributaryProperties properties) {
    TributaryProperties.Flink.S3 s3 = properties.flink().storage().s3();
    return new StateStorage(s3);
  }

  @Bean
  GatewayFlinkSql flinkSql(TributaryProperties properties, StateStorage storage) {
    TributaryProperties.Flink flink = properties.flink();
    String jarDir = flink.formatJarDir();
    FormatJar formatJar =
        jarDir == null || jarDir.isBlank()
            ? null
            : new FormatJar(storage, jarDir, Clock.systemUTC());
    return new GatewayFlinkSql(
        HttpClients.restClient(flink.sqlGatewayUrl(), flink.requestTimeout()).build(),
        flink.statementTimeout(),
        formatJar);
  }

  @Bean
  RestFlinkJobs flinkJobs(TributaryProperties properties, StateStorage storage) {
    TributaryProperties.Flink flink = properties.flink();
    return new RestFlinkJobs(
        HttpClients.restClient(flink.restUrl(), flink.requestTimeout()).build(), storage);
  }

  @Bean
  HealthIndicator flinkHealthIndicator(
      GatewayFlinkSql sql, RestFlinkJobs jobs, TributaryProperties properties) {
    // A session and two statements: asked at most once a minute, whatever polls health.
    Cached<String> formatProbe = new Cached<>(Duration.ofMinutes(1), Clock.systemUTC());
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
        health.withDetail(
            "formatJar",
            sql.formatJar() == null ? "expected in the cluster's lib/" : sql.formatJar());
        String formats = formatProbe.get(sql::probeFormats);
        health.withDetail("formats", formats);
        if (!formats.equals("loadable")) {
          health.down();
        }
        return health.build();
      } catch (RuntimeException e) {
        return health.down().withDetail("error", String.valueOf(e.getMessage())).build();
      }
    };
  }
}
