package dev.tributary.system;

import java.time.Duration;

/**
 * Bucket bounds of the service's histograms. Fixed sets, not Micrometer's 70-odd default buckets,
 * so that a histogram costs about a dozen series per label set; Prometheus sums the buckets across
 * replicas, which summaries' quantiles cannot.
 */
public final class Histograms {

  /** Reconcile passes and calls to Kafka, the registry and Flink: milliseconds to half a minute. */
  public static final Duration[] CALLS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  /** FULL refreshes: seconds to hours. */
  public static final Duration[] REFRESHES = {
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(15),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(10),
    Duration.ofMinutes(30),
    Duration.ofHours(1),
    Duration.ofHours(3)
  };

  private Histograms() {}
}
