package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** FRESHNESS as a schedule: Flink's cron where Flink has one, a fixed rate where it refuses. */
class RefreshScheduleTest {

  private static RefreshSchedule every(long n, Clauses.TimeUnit unit, String zone) {
    return new RefreshSchedule(new Clauses.Interval(n, unit), ZoneId.of(zone));
  }

  @Test
  void shouldDeriveFlinksCronForTheDivisorsFlinkAccepts() {
    assertThat(every(5, Clauses.TimeUnit.SECOND, "UTC").cron()).hasValue("0/5 * * * * ? *");
    assertThat(every(15, Clauses.TimeUnit.MINUTE, "UTC").cron()).hasValue("0 0/15 * * * ? *");
    assertThat(every(6, Clauses.TimeUnit.HOUR, "UTC").cron()).hasValue("0 0 0/6 * * ? *");
    assertThat(every(1, Clauses.TimeUnit.DAY, "UTC").cron()).hasValue("0 0 0 * * ? *");
    // Flink refuses these; here they run at a fixed rate.
    assertThat(every(90, Clauses.TimeUnit.MINUTE, "UTC").cron()).isEmpty();
    assertThat(every(5, Clauses.TimeUnit.HOUR, "UTC").cron()).isEmpty();
    assertThat(every(7, Clauses.TimeUnit.SECOND, "UTC").cron()).isEmpty();
    assertThat(every(2, Clauses.TimeUnit.DAY, "UTC").cron()).isEmpty();
  }

  @Test
  void shouldPutSlotsOnTheWallClockOfTheTablesZone() {
    RefreshSchedule hourly = every(6, Clauses.TimeUnit.HOUR, "Europe/Berlin");
    // 13:30 in Berlin (UTC+1 in winter) is in the slot that began at 12:00 Berlin = 11:00 UTC.
    assertThat(hourly.floor(Instant.parse("2024-01-02T12:30:00Z")))
        .isEqualTo(Instant.parse("2024-01-02T11:00:00Z"));
    assertThat(hourly.next(Instant.parse("2024-01-02T12:30:00Z")))
        .isEqualTo(Instant.parse("2024-01-02T17:00:00Z"));
    RefreshSchedule seconds = every(5, Clauses.TimeUnit.SECOND, "UTC");
    assertThat(seconds.floor(Instant.parse("2024-01-02T00:00:07.300Z")))
        .isEqualTo(Instant.parse("2024-01-02T00:00:05Z"));
    assertThat(seconds.next(Instant.parse("2024-01-02T00:00:05Z")))
        .isEqualTo(Instant.parse("2024-01-02T00:00:10Z"));
  }

  @Test
  void shouldKeepFixedRateSlotsOnOneGridFromTheAnchor() {
    RefreshSchedule ninety = every(90, Clauses.TimeUnit.MINUTE, "UTC");
    // 2000-01-01T00:00Z + k * 90 min: 1:30, 3:00, 4:30 ... on every day, since 90 min divides 24 h.
    assertThat(ninety.floor(Instant.parse("2024-01-02T04:00:00Z")))
        .isEqualTo(Instant.parse("2024-01-02T03:00:00Z"));
    assertThat(ninety.next(Instant.parse("2024-01-02T04:00:00Z")))
        .isEqualTo(Instant.parse("2024-01-02T04:30:00Z"));
    RefreshSchedule five = every(5, Clauses.TimeUnit.HOUR, "UTC");
    Instant slot = five.floor(Instant.parse("2024-01-02T04:00:00Z"));
    assertThat(five.next(slot)).isEqualTo(slot.plusSeconds(5 * 3600));
    assertThat((slot.getEpochSecond() - five.anchor().getEpochSecond()) % (5 * 3600)).isZero();
  }

  @Test
  void shouldRefreshThePartitionOfTheSlotMinusTheFreshnessAsFlinkDoes() {
    Map<String, String> options =
        Map.of(
            "partition.fields.ds.date-formatter", "yyyy-MM-dd",
            "kafka.retention.time", "7 d");
    // Firing at 2024-01-02 00:00 with 1 DAY refreshes ds = '2024-01-01'.
    assertThat(
            every(1, Clauses.TimeUnit.DAY, "UTC")
                .partition(Instant.parse("2024-01-02T00:00:00Z"), options))
        .isEqualTo(Map.of("ds", "2024-01-01"));
    // With 1 HOUR, day and hour: 2024-01-01, hour 23.
    assertThat(
            every(1, Clauses.TimeUnit.HOUR, "UTC")
                .partition(
                    Instant.parse("2024-01-02T00:00:00Z"),
                    Map.of(
                        "partition.fields.day.date-formatter", "yyyy-MM-dd",
                        "partition.fields.hour.date-formatter", "HH")))
        .isEqualTo(Map.of("day", "2024-01-01", "hour", "23"));
    // The table's zone is used to format, as to fire: midnight in Tokyo is 15:00 UTC.
    assertThat(
            every(1, Clauses.TimeUnit.DAY, "Asia/Tokyo")
                .partition(Instant.parse("2024-01-01T15:00:00Z"), options))
        .isEqualTo(Map.of("ds", "2024-01-01"));
    assertThat(every(1, Clauses.TimeUnit.DAY, "UTC").partition(Instant.EPOCH, Map.of())).isEmpty();
  }
}
