package dev.tributary.sql;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The effective definition of a materialized table: what it says, with every default written out.
 * SHOW CREATE MATERIALIZED TABLE prints this, so nothing about the table is implicit.
 */
public final class Defaults {

  /** Buckets (and so topic partitions) when DISTRIBUTED says none. */
  public static final int DEFAULT_BUCKETS = 6;

  /** Flink's default freshness of a materialized table. */
  public static final Clauses.Interval DEFAULT_FRESHNESS =
      new Clauses.Interval(3, Clauses.TimeUnit.MINUTE);

  /** Flink's default freshness of a FULL table (REFRESH_MODE = FULL without FRESHNESS). */
  public static final Clauses.Interval DEFAULT_FULL_FRESHNESS =
      new Clauses.Interval(1, Clauses.TimeUnit.HOUR);

  /** AUTO refresh is CONTINUOUS below this freshness and FULL at or above it (Flink's default). */
  public static final Duration FRESHNESS_THRESHOLD = Duration.ofMinutes(30);

  /**
   * The threshold this process resolves AUTO with ({@code tributary.refresh.freshness-threshold},
   * set once at startup): one value per service, as Flink's {@code
   * materialized-table.refresh-mode.freshness-threshold} is one per gateway.
   */
  private static volatile Duration threshold = FRESHNESS_THRESHOLD;

  /** Sets the AUTO threshold of this process (at startup, from configuration). */
  public static void useFreshnessThreshold(Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("The freshness threshold must be positive: " + value);
    }
    threshold = value;
  }

  public static Duration freshnessThreshold() {
    return threshold;
  }

  public static final Clauses.StartMode DEFAULT_START_MODE =
      Clauses.StartMode.of(Clauses.StartMode.Kind.RESUME_OR_FROM_BEGINNING);

  public static final String DEFAULT_FORMAT = "json-registry";

  private Defaults() {}

  public static MaterializedTableDefinition effective(MaterializedTableDefinition d) {
    d = withDerivedKey(d);
    List<String> key =
        d.schema() != null && d.schema().primaryKey() != null
            ? d.schema().primaryKey().columns()
            : List.of();
    Clauses.Distribution distribution = distribution(d.distribution(), key);
    Clauses.RefreshMode mode = refreshMode(d.refreshMode(), d.freshness());
    Clauses.Interval freshness =
        d.freshness() != null
            ? d.freshness()
            : mode == Clauses.RefreshMode.FULL ? DEFAULT_FULL_FRESHNESS : DEFAULT_FRESHNESS;
    Map<String, String> options = new TreeMap<>(d.options());
    String changelog =
        options.computeIfAbsent("changelog.mode", k -> key.isEmpty() ? "append" : "upsert");
    if (changelog.equals("retract")
        && distribution.columns().isEmpty()
        && d.distribution() == null) {
      // Without a key, the changes of one row could land on different partitions and be read out
      // of order: a keyless retract table is written to one partition unless told otherwise.
      distribution = new Clauses.Distribution(null, List.of(), 1);
    }
    options.putIfAbsent("kafka.cleanup-policy", changelog.equals("upsert") ? "compact" : "delete");
    options.putIfAbsent("value.format", DEFAULT_FORMAT);
    if (!distribution.columns().isEmpty()) {
      options.putIfAbsent("key.format", DEFAULT_FORMAT);
    }
    return d.withDistribution(distribution)
        .withOptions(options)
        .withFreshness(freshness)
        .withRefreshMode(mode)
        // A FULL table reads its sources from the beginning at every refresh: no START_MODE (so
        // that SHOW CREATE of a FULL table can be submitted again as it is).
        .withStartMode(
            d.startMode() != null || mode == Clauses.RefreshMode.FULL
                ? d.startMode()
                : DEFAULT_START_MODE);
  }

  /**
   * A table without a declared primary key whose query aggregates is keyed by the key Flink derives
   * for it (the GROUP BY columns, {@link QueryAnalysis#derivedKey}), unless it is declared append:
   * it is then an upsert table, as if the key were declared, or a retract table whose records are
   * keyed by it, so that the changes of one row stay in order on one partition.
   */
  public static MaterializedTableDefinition withDerivedKey(MaterializedTableDefinition d) {
    boolean declared = d.schema() != null && d.schema().primaryKey() != null;
    String mode = d.options().get("changelog.mode");
    if (declared || "append".equals(mode) || d.query() == null) {
      return d;
    }
    return QueryAnalysis.derivedKey(d.query())
        .map(
            key -> {
              TableSchema.PrimaryKey primaryKey = new TableSchema.PrimaryKey(null, key);
              TableSchema schema =
                  d.schema() == null
                      ? new TableSchema(List.of(), null, primaryKey, List.of())
                      : new TableSchema(
                          d.schema().columns(),
                          d.schema().watermark(),
                          primaryKey,
                          d.schema().expectations());
              return d.withSchema(schema);
            })
        .orElse(d);
  }

  /** AUTO resolved by freshness: CONTINUOUS when fresher than the threshold, else FULL. */
  public static Clauses.RefreshMode refreshMode(
      Clauses.RefreshMode mode, Clauses.Interval freshness) {
    if (mode != null && mode != Clauses.RefreshMode.AUTO) {
      return mode;
    }
    Clauses.Interval f = freshness != null ? freshness : DEFAULT_FRESHNESS;
    return f.toDuration().compareTo(threshold) < 0
        ? Clauses.RefreshMode.CONTINUOUS
        : Clauses.RefreshMode.FULL;
  }

  /** Why the table has its refresh mode: explicit, or how AUTO chose it. */
  public static String refreshModeReason(MaterializedTableDefinition d) {
    Clauses.RefreshMode mode = refreshMode(d.refreshMode(), d.freshness());
    if (d.refreshMode() != null && d.refreshMode() != Clauses.RefreshMode.AUTO) {
      return "REFRESH_MODE = " + mode + " is declared";
    }
    Clauses.Interval f = d.freshness() != null ? d.freshness() : DEFAULT_FRESHNESS;
    return "REFRESH_MODE AUTO chose "
        + mode
        + ": FRESHNESS "
        + f.sql()
        + (d.freshness() == null ? " (the default)" : "")
        + (mode == Clauses.RefreshMode.FULL ? " is at or above" : " is below")
        + " the threshold of "
        + human(threshold);
  }

  private static String human(Duration d) {
    if (d.toSeconds() % 3600 == 0) {
      return d.toHours() + (d.toHours() == 1 ? " hour" : " hours");
    }
    if (d.toSeconds() % 60 == 0) {
      return d.toMinutes() + " minutes";
    }
    return d.toSeconds() + " seconds";
  }

  /** Bucket count filled in; the key (HASH) defaults to the primary key. */
  private static Clauses.Distribution distribution(
      Clauses.Distribution d, List<String> primaryKey) {
    if (d == null) {
      return primaryKey.isEmpty()
          ? new Clauses.Distribution(null, List.of(), DEFAULT_BUCKETS)
          : new Clauses.Distribution(
              Clauses.Distribution.Algorithm.HASH, primaryKey, DEFAULT_BUCKETS);
    }
    Clauses.Distribution.Algorithm algorithm =
        d.algorithm() == null && !d.columns().isEmpty()
            ? Clauses.Distribution.Algorithm.HASH
            : d.algorithm();
    return new Clauses.Distribution(
        algorithm, d.columns(), d.buckets() != null ? d.buckets() : DEFAULT_BUCKETS);
  }
}
