package dev.tributary.sql;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * When a FULL table refreshes, from its FRESHNESS, in one time zone. A freshness Flink can express
 * as a cron (an amount that divides its unit: 1-30 seconds or minutes that divide 60, hours that
 * divide 24, one day) fires on the wall clock as Flink's does; any other (90 minutes, 5 hours, 2
 * days) fires at a fixed rate from midnight of 2000-01-01 in the zone, so its slots are the same on
 * every replica and after every restart. A slot is the instant a run is for: partitions are
 * computed from it, and a scheduled run records it.
 */
public record RefreshSchedule(Clauses.Interval freshness, ZoneId zone) {

  /** The table's time zone when it names none. */
  public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");

  private static final Set<Long> SIXTY = Set.of(1L, 2L, 3L, 4L, 5L, 6L, 10L, 12L, 15L, 20L, 30L);
  private static final Set<Long> HOURS = Set.of(1L, 2L, 3L, 4L, 6L, 8L, 12L);
  private static final LocalDate ANCHOR_DAY = LocalDate.of(2000, 1, 1);

  /** The schedule of an effective definition: its freshness, in its {@code refresh.time-zone}. */
  public static RefreshSchedule of(MaterializedTableDefinition effective) {
    String zone = effective.options().get("refresh.time-zone");
    return new RefreshSchedule(
        effective.freshness(), zone == null ? DEFAULT_ZONE : ZoneId.of(zone.strip()));
  }

  /** Flink's cron for this freshness, or empty when Flink refuses it (then: fixed rate). */
  public Optional<String> cron() {
    long n = freshness.amount();
    return Optional.ofNullable(
        switch (freshness.unit()) {
          case SECOND -> SIXTY.contains(n) ? "0/" + n + " * * * * ? *" : null;
          case MINUTE -> SIXTY.contains(n) ? "0 0/" + n + " * * * ? *" : null;
          case HOUR -> HOURS.contains(n) ? "0 0 0/" + n + " * * ? *" : null;
          case DAY -> n == 1 ? "0 0 0 * * ? *" : null;
        });
  }

  public Duration period() {
    return freshness.toDuration();
  }

  /** The newest slot at or before {@code t}. */
  public Instant floor(Instant t) {
    ZonedDateTime z = t.atZone(zone);
    long n = freshness.amount();
    if (cron().isPresent()) {
      ZonedDateTime slot =
          switch (freshness.unit()) {
            case SECOND -> {
              ZonedDateTime s = z.truncatedTo(ChronoUnit.SECONDS);
              yield s.minusSeconds(s.getSecond() % n);
            }
            case MINUTE -> {
              ZonedDateTime m = z.truncatedTo(ChronoUnit.MINUTES);
              yield m.minusMinutes(m.getMinute() % n);
            }
            case HOUR -> {
              ZonedDateTime h = z.truncatedTo(ChronoUnit.HOURS);
              yield h.minusHours(h.getHour() % n);
            }
            case DAY -> z.truncatedTo(ChronoUnit.DAYS);
          };
      return slot.toInstant();
    }
    long periodMs = period().toMillis();
    long since = t.toEpochMilli() - anchor().toEpochMilli();
    return anchor().plusMillis(Math.floorDiv(since, periodMs) * periodMs);
  }

  /** The first slot after {@code t}. */
  public Instant next(Instant t) {
    Instant slot = floor(t);
    Instant candidate = slot.plus(period());
    // On the wall clock a slot is not always a period after the previous one (a DST change).
    for (int i = 0; i < 4 && !floor(candidate).isAfter(slot); i++) {
      candidate = candidate.plus(period());
    }
    Instant aligned = floor(candidate);
    return aligned.isAfter(t) ? aligned : candidate;
  }

  /** The origin of a fixed-rate schedule's slots: midnight of 2000-01-01 in the zone. */
  public Instant anchor() {
    return ANCHOR_DAY.atStartOfDay(zone).toInstant();
  }

  /**
   * The partition a scheduled run of {@code slot} refreshes, as Flink computes it: for every {@code
   * partition.fields.<column>.date-formatter} option, the column's value is (slot - freshness)
   * formatted with that pattern in the table's zone. Empty without formatters: the whole table.
   */
  public Map<String, String> partition(Instant slot, Map<String, String> options) {
    Map<String, String> values = new TreeMap<>();
    ZonedDateTime at = slot.minus(period()).atZone(zone);
    options.forEach(
        (key, pattern) ->
            TableOptions.dateFormatterColumn(key)
                .ifPresent(
                    column -> values.put(column, DateTimeFormatter.ofPattern(pattern).format(at))));
    return values;
  }
}
