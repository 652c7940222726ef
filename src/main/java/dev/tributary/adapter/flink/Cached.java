package dev.tributary.adapter.flink;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * A value computed at most once per {@code ttl}; a failure is not kept, so the next call computes
 * again. What the health probe of the formats and the format jar's upload check share: a remote
 * question asked at most once a minute however often it is read.
 */
final class Cached<T> {
  private final Duration ttl;
  private final Clock clock;
  private T value;
  private Instant at = Instant.MIN;

  Cached(Duration ttl, Clock clock) {
    this.ttl = ttl;
    this.clock = clock;
  }

  synchronized T get(Supplier<T> compute) {
    Instant now = clock.instant();
    if (value == null || at.plus(ttl).isBefore(now)) {
      value = compute.get();
      at = now;
    }
    return value;
  }
}
