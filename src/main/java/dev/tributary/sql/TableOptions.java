package dev.tributary.sql;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The WITH options a materialized table accepts (those documented in the seeds) and the shape of
 * each value. {@link #check} answers an error message, or empty when the option is fine.
 */
public final class TableOptions {

  private static final Pattern DURATION =
      Pattern.compile(
          "(\\d+)\\s*(ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|min|mins|minute|minutes|h|hour|hours|d|day|days)?");
  private static final Pattern MEMORY =
      Pattern.compile(
          "(\\d+)\\s*(b|bytes|k|kb|kib|kibibytes|m|mb|mib|mebibytes|g|gb|gib|gibibytes|t|tb|tib|tebibytes)?");
  private static final Set<String> FORMATS =
      Set.of("avro-registry", "json-registry", "proto-registry", "raw");

  private static final Map<String, Function<String, String>> OPTIONS = new LinkedHashMap<>();

  /** The option that places a table's jobs on a compute pool (its Flink cluster). */
  public static final String COMPUTE_POOL = "compute-pool";

  /** The pool of the configured cluster, where a table without {@link #COMPUTE_POOL} runs. */
  public static final String DEFAULT_POOL = "default";

  private static final Pattern POOL_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  static {
    OPTIONS.put("changelog.mode", oneOf("append", "upsert", "retract"));
    OPTIONS.put(
        COMPUTE_POOL,
        v ->
            POOL_NAME.matcher(v).matches()
                ? null
                : "a compute pool's name (lower-case letters, digits and '-', at most 63)");
    OPTIONS.put("connector", TableOptions::notBlank);
    OPTIONS.put("error-handling.log.target", TableOptions::notBlank);
    OPTIONS.put("error-handling.mode", oneOf("fail", "ignore", "log"));
    OPTIONS.put("kafka.cleanup-policy", oneOf("delete", "compact", "delete-compact"));
    OPTIONS.put(
        "kafka.compaction.time",
        v -> duration(v).isPresent() ? null : "a duration such as '1 h' or '7 d'");
    OPTIONS.put(
        "kafka.max-message-size",
        v -> memory(v).isPresent() ? null : "a size such as '2 mb' or '1048576 bytes'");
    OPTIONS.put(
        "kafka.retention.size",
        v ->
            v.strip().equals("-1") || memory(v).isPresent()
                ? null
                : "a size such as '10 gb', or '-1' for no limit");
    OPTIONS.put(
        "kafka.retention.time",
        v ->
            v.strip().equals("-1") || duration(v).isPresent()
                ? null
                : "a duration such as '30 d' or '12 h', or '-1' for no limit");
    OPTIONS.put("key.fields-prefix", v -> null);
    OPTIONS.put("key.format", oneOf(FORMATS));
    OPTIONS.put("key.format.schema-context", TableOptions::notBlank);
    OPTIONS.put("scan.bounded.mode", oneOf("unbounded", "latest-offset", "timestamp"));
    OPTIONS.put(
        "scan.bounded.timestamp-millis",
        v -> v.strip().matches("\\d{1,18}") ? null : "epoch milliseconds");
    OPTIONS.put(
        "scan.startup.mode",
        oneOf(
            "earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"));
    OPTIONS.put("value.fields-include", oneOf("all", "except-key"));
    OPTIONS.put("value.format", oneOf(FORMATS));
    OPTIONS.put("value.format.schema-context", TableOptions::notBlank);
    OPTIONS.put("refresh.incremental", oneOf("true", "false"));
    OPTIONS.put("refresh.on-create", oneOf("true", "false"));
    OPTIONS.put("refresh.time-zone", TableOptions::zone);
    OPTIONS.put("resume.offsets", oneOf("exact", "exact-or-committed"));
  }

  /** The compute pool a table's options place it on. */
  public static String pool(Map<String, String> options) {
    return options.getOrDefault(COMPUTE_POOL, DEFAULT_POOL);
  }

  /** {@code partition.fields.<column>.date-formatter}: the pattern a scheduled run formats with. */
  private static final Pattern DATE_FORMATTER =
      Pattern.compile("partition\\.fields\\.(.+)\\.date-formatter");

  /** The partition column a {@code partition.fields.<column>.date-formatter} key names. */
  public static Optional<String> dateFormatterColumn(String key) {
    Matcher m = DATE_FORMATTER.matcher(key);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  private static String zone(String value) {
    try {
      ZoneId.of(value.strip());
      return null;
    } catch (DateTimeException e) {
      return "a time zone id such as 'UTC' or 'Europe/Berlin'";
    }
  }

  private static String dateFormatter(String value) {
    try {
      DateTimeFormatter.ofPattern(value);
      return value.isBlank() ? "a date pattern such as 'yyyy-MM-dd'" : null;
    } catch (IllegalArgumentException e) {
      return "a date pattern such as 'yyyy-MM-dd' or 'HH' (" + e.getMessage() + ")";
    }
  }

  private TableOptions() {}

  public static Set<String> names() {
    return OPTIONS.keySet();
  }

  /** Whether the key is a documented option. */
  public static boolean known(String key) {
    return OPTIONS.containsKey(key) || dateFormatterColumn(key).isPresent();
  }

  /** The documented option nearest to a misspelt key, if one is close enough. */
  public static Optional<String> nearest(String key) {
    return OPTIONS.keySet().stream()
        .min(Comparator.comparingInt(k -> distance(k, key)))
        .filter(k -> distance(k, key) <= Math.max(3, key.length() / 3));
  }

  /** What the value should look like, or empty when it is fine. */
  public static Optional<String> invalidValue(String key, String value) {
    if (dateFormatterColumn(key).isPresent()) {
      return Optional.ofNullable(dateFormatter(value));
    }
    Function<String, String> check = OPTIONS.get(key);
    return check == null ? Optional.empty() : Optional.ofNullable(check.apply(value));
  }

  /** A Flink-style duration ('30 d', '12 h', '500 ms'; a bare number is milliseconds). */
  public static Optional<Duration> duration(String text) {
    Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches() || m.group(1).length() > 15) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "ms" : m.group(2);
    return Optional.of(
        switch (unit.charAt(0)) {
          case 'd' -> Duration.ofDays(n);
          case 'h' -> Duration.ofHours(n);
          case 's' -> Duration.ofSeconds(n);
          default ->
              unit.startsWith("mi") && !unit.startsWith("mil")
                  ? Duration.ofMinutes(n)
                  : Duration.ofMillis(n);
        });
  }

  /** A Flink-style memory size in bytes ('2 mb', '1 gb', '512'; a bare number is bytes). */
  public static Optional<Long> memory(String text) {
    Matcher m = MEMORY.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches() || m.group(1).length() > 15) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    int shift =
        switch (unit.charAt(0)) {
          case 'k' -> 10;
          case 'm' -> 20;
          case 'g' -> 30;
          case 't' -> 40;
          default -> 0;
        };
    return shift > 0 && n > (Long.MAX_VALUE >> shift) ? Optional.empty() : Optional.of(n << shift);
  }

  private static Function<String, String> oneOf(String... values) {
    return oneOf(Set.of(values));
  }

  private static Function<String, String> oneOf(Set<String> values) {
    return v -> values.contains(v) ? null : "one of " + String.join(", ", new TreeSet<>(values));
  }

  private static String notBlank(String v) {
    return v.isBlank() ? "a non-empty value" : null;
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
