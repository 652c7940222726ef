package dev.tributary.adapter;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.stereotype.Component;

/**
 * {@code tributary_dependency_up{system}}: 1 while Kafka, the schema registry and Flink answer
 * their health checks (the same checks as {@code /actuator/health}), 0 when the last check failed
 * or has not come back for two intervals (a hung dependency). Each system is checked on its own
 * thread every {@code tributary.metrics.dependency-interval} (15 s), whoever scrapes, so a scrape
 * never waits on a remote system and an alert needs no table to be reconciled to notice an outage.
 */
@Component
public class DependencyProbe {

  private static final Logger log = LoggerFactory.getLogger(DependencyProbe.class);

  /** Health indicator bean, by the {@code system} label it reports as. */
  private static final Map<String, String> SYSTEMS =
      Map.of(
          "kafka", "kafkaHealthIndicator",
          "schemaRegistry", "schemaRegistryHealthIndicator",
          "flink", "flinkHealthIndicator");

  private final ScheduledExecutorService probes;

  /** When the next check of any system starts (nanoTime), for {@link #untilNextCheck()}. */
  private final AtomicLong nextCheckAt = new AtomicLong(System.nanoTime());

  private final Duration interval;

  public DependencyProbe(
      Map<String, HealthIndicator> indicators,
      MeterRegistry meters,
      @Value("${tributary.metrics.dependency-interval:15s}") Duration interval) {
    this.interval = interval;
    probes =
        Executors.newScheduledThreadPool(
            SYSTEMS.size(),
            r -> {
              Thread t = new Thread(r, "tributary-dependency-probe");
              t.setDaemon(true);
              return t;
            });
    for (Map.Entry<String, String> system : SYSTEMS.entrySet()) {
      HealthIndicator indicator = indicators.get(system.getValue());
      if (indicator == null) {
        continue;
      }
      // When the last check came back UP (nanoTime), or Long.MIN_VALUE.
      AtomicLong upAt = new AtomicLong(Long.MIN_VALUE);
      Gauge.builder(
              "tributary.dependency.up",
              upAt,
              at -> {
                long seen = at.get();
                return seen != Long.MIN_VALUE
                        && System.nanoTime() - seen < 2 * interval.toNanos() + 5_000_000_000L
                    ? 1
                    : 0;
              })
          .description(
              "1 while the system answers its health check (checked every"
                  + " tributary.metrics.dependency-interval), 0 when it failed or hangs")
          .tag("system", system.getKey())
          .register(meters);
      probes.scheduleWithFixedDelay(
          () -> {
            check(system.getKey(), indicator, upAt);
            nextCheckAt.set(System.nanoTime() + interval.toNanos());
          },
          0,
          interval.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * How long until the dependencies are checked again: what a caller answered 503 should wait
   * before trying again (at least a second, at most an interval).
   */
  public Duration untilNextCheck() {
    long nanos = nextCheckAt.get() - System.nanoTime();
    return Duration.ofNanos(Math.max(1_000_000_000L, Math.min(nanos, interval.toNanos())));
  }

  private static void check(String system, HealthIndicator indicator, AtomicLong upAt) {
    try {
      var health = indicator.health(false);
      if (health != null && Status.UP.equals(health.getStatus())) {
        upAt.set(System.nanoTime());
      } else {
        upAt.set(Long.MIN_VALUE);
      }
    } catch (RuntimeException e) {
      log.debug("Health check of {} failed: {}", system, e.toString());
      upAt.set(Long.MIN_VALUE);
    }
  }

  @PreDestroy
  void stop() {
    probes.shutdownNow();
  }
}
