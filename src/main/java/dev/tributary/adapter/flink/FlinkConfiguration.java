package dev.tributary.adapter.flink;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.ComputePoolDirectory.Cluster;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.LocalPlanner;
import dev.tributary.system.TributaryProperties;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import tools.jackson.databind.JsonNode;

/** Wires the Flink adapters (SQL Gateway and JobManager REST) and their health indicator. */
@Configuration(proxyBeanMethods = false)
class FlinkConfiguration {

  private static final Logger log = LoggerFactory.getLogger(FlinkConfiguration.class);

  @Bean
  StateStorage flinkStateStorage(TributaryProperties properties) {
    TributaryProperties.Flink.S3 s3 = properties.flink().storage().s3();
    return new StateStorage(s3);
  }

  /**
   * The clients of every compute pool: the configured cluster's (the pool {@code default}) and
   * those of the pools stored in the directory. Not a port itself: the two routers below are, and
   * {@code RemoteCallGuard} times each call once, at the router.
   */
  @Bean
  PoolClients flinkPoolClients(
      TributaryProperties properties, StateStorage storage, ComputePoolDirectory directory) {
    TributaryProperties.Flink flink = properties.flink();
    String jarDir = flink.formatJarDir();
    FormatJar formatJar =
        jarDir == null || jarDir.isBlank()
            ? null
            : new FormatJar(storage, jarDir, Clock.systemUTC());
    Function<Cluster, PoolClients.Clients> make =
        PoolClients.maker(flink.requestTimeout(), flink.statementTimeout(), storage, formatJar);
    PoolClients.Clients configured =
        make.apply(
            new Cluster(
                FlinkJobs.DEFAULT_POOL, flink.restUrl(), flink.sqlGatewayUrl(), null, null));
    return new PoolClients(directory, configured, make);
  }

  @Bean
  FlinkSql flinkSql(PoolClients pools) {
    return new PooledFlinkSql(pools);
  }

  /**
   * Flink's planner in this process, asked by validation before a gateway of its Flink version;
   * {@code tributary.flink.validation=gateway} asks the gateways only. It plans a query once as
   * soon as the service is ready, on a thread of its own, so that no user waits for its classes.
   */
  @Bean
  @ConditionalOnProperty(
      name = "tributary.flink.validation",
      havingValue = "planner",
      matchIfMissing = true)
  LocalPlanner flinkLocalPlanner() {
    return new LocalPlanner(new PlannerFlinkSql());
  }

  @EventListener(ApplicationReadyEvent.class)
  void warmUpPlanner(ApplicationReadyEvent ready) {
    ready
        .getApplicationContext()
        .getBeanProvider(LocalPlanner.class)
        .ifAvailable(
            local -> {
              Thread warmUp =
                  new Thread(
                      () -> {
                        try {
                          ((PlannerFlinkSql) local.sql()).warmUp();
                        } catch (RuntimeException | LinkageError e) {
                          log.warn("Flink's planner did not warm up; validation asks it anyway", e);
                        }
                      },
                      "planner-warm-up");
              warmUp.setDaemon(true);
              warmUp.start();
            });
  }

  @Bean
  FlinkJobs flinkJobs(PoolClients pools) {
    return new PooledFlinkJobs(pools);
  }

  @Bean
  HealthIndicator flinkHealthIndicator(PoolClients pools, TributaryProperties properties) {
    GatewayFlinkSql sql = pools.configured().sql();
    RestFlinkJobs jobs = pools.configured().jobs();
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
