package dev.tributary.sql;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Value types of the table clauses: distribution, intervals, refresh and start modes. */
public final class Clauses {

  private Clauses() {}

  /**
   * {@code DISTRIBUTED BY [HASH|RANGE] (columns) [INTO n BUCKETS]} or {@code DISTRIBUTED INTO n
   * BUCKETS}. {@code algorithm} is null when not written; {@code buckets} null when not written.
   */
  public record Distribution(Algorithm algorithm, List<String> columns, Integer buckets) {
    public Distribution {
      columns = List.copyOf(columns);
    }

    /** How rows are assigned to buckets. */
    public enum Algorithm {
      HASH,
      RANGE
    }
  }

  /** {@code INTERVAL 'amount' UNIT}. */
  public record Interval(long amount, TimeUnit unit) {
    public Duration toDuration() {
      return unit.duration.multipliedBy(amount);
    }

    public String sql() {
      return "INTERVAL '" + amount + "' " + unit.name();
    }
  }

  /** Units an interval may be written in; plural spellings are accepted on input. */
  public enum TimeUnit {
    SECOND(Duration.ofSeconds(1)),
    MINUTE(Duration.ofMinutes(1)),
    HOUR(Duration.ofHours(1)),
    DAY(Duration.ofDays(1));

    private final Duration duration;

    TimeUnit(Duration duration) {
      this.duration = duration;
    }

    static TimeUnit parse(String word) {
      String w = word.toUpperCase(Locale.ROOT);
      for (TimeUnit unit : values()) {
        if (w.equals(unit.name()) || w.equals(unit.name() + "S")) {
          return unit;
        }
      }
      return null;
    }
  }

  /** REFRESH MODE: AUTO lets freshness decide between CONTINUOUS and FULL. */
  public enum RefreshMode {
    AUTO,
    CONTINUOUS,
    FULL
  }

  /**
   * START_MODE. {@code offset} goes with the FROM_NOW kinds (optional), {@code timestamp} (as
   * written: a quoted timestamp or epoch milliseconds) with the FROM_TIMESTAMP kinds (required).
   */
  public record StartMode(Kind kind, Interval offset, String timestamp) {
    /** The six start modes. */
    public enum Kind {
      FROM_BEGINNING,
      FROM_NOW,
      FROM_TIMESTAMP,
      RESUME_OR_FROM_BEGINNING,
      RESUME_OR_FROM_NOW,
      RESUME_OR_FROM_TIMESTAMP;

      boolean takesOffset() {
        return this == FROM_NOW || this == RESUME_OR_FROM_NOW;
      }

      boolean takesTimestamp() {
        return this == FROM_TIMESTAMP || this == RESUME_OR_FROM_TIMESTAMP;
      }

      /** True for the RESUME_OR_* modes: a source read before continues where it stopped. */
      public boolean resumes() {
        return name().startsWith("RESUME_OR_");
      }
    }

    /** Where a source starts when nothing is resumed, in words ("the beginning", "now", ...). */
    public String fallback() {
      return switch (kind) {
        case FROM_BEGINNING, RESUME_OR_FROM_BEGINNING -> "the beginning";
        case FROM_NOW, RESUME_OR_FROM_NOW -> offset == null ? "now" : "now minus " + offset.sql();
        case FROM_TIMESTAMP, RESUME_OR_FROM_TIMESTAMP -> "timestamp " + timestamp;
      };
    }

    public static StartMode of(Kind kind) {
      return new StartMode(kind, null, null);
    }
  }
}
