package dev.tributary.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The phases of one path (the service's, or the same work by hand) over interleaved rounds: each
 * round's phases in the order they happened, printed per round, then each phase's median and 90th
 * percentile and the total's, so that a change can be judged against the spread of the rounds.
 * Phases may overlap when they come from different clocks' views of one span (the service's
 * Server-Timing inside the client's call); the total is measured, never a sum.
 */
public final class Waterfall {

  private static final Pattern TIMING =
      Pattern.compile("([A-Za-z][\\w-]*);dur=([0-9.]+)(?:;desc=\"(\\d+) calls\")?");

  private final String name;
  private final List<Map<String, Double>> rounds = new ArrayList<>();
  private final List<Double> totals = new ArrayList<>();
  private Map<String, Double> current;

  public Waterfall(String name) {
    this.name = name;
  }

  /** The name it prints under. */
  @Override
  public String toString() {
    return name;
  }

  /** Starts a round. */
  public void round() {
    current = new LinkedHashMap<>();
    rounds.add(current);
  }

  /** A phase of the current round, in milliseconds. */
  public void phase(String phase, double millis) {
    current.merge(phase, millis, Double::sum);
  }

  /**
   * The phases of a {@code Server-Timing} header, each prefixed (e.g. {@code create.parse}); its
   * {@code total} is left out, the caller measured the call.
   */
  void serverTiming(String prefix, String header) {
    if (header == null) {
      return;
    }
    Matcher m = TIMING.matcher(header);
    while (m.find()) {
      if (!m.group(1).equals("total")) {
        String calls = m.group(3) == null ? "" : "(" + m.group(3) + ")";
        phase(prefix + "." + m.group(1) + calls, Double.parseDouble(m.group(2)));
      }
    }
  }

  /** Ends the round with its measured total, and prints it. */
  public void total(double millis, int round) {
    totals.add(millis);
    StringJoiner phases = new StringJoiner(", ");
    current.forEach((phase, ms) -> phases.add(phase + " " + Math.round(ms)));
    System.out.printf(
        Locale.ROOT, "BENCH %s round %d: %.0f ms [%s]%n", name, round, millis, phases);
  }

  /** Ends the round with its measured total, without printing it (one of many like it). */
  public void quietTotal(double millis) {
    totals.add(millis);
  }

  public double median() {
    return percentile(totals, 0.5);
  }

  public double p90() {
    return percentile(totals, 0.9);
  }

  /** The medians of every phase and of the total, and the total's 10th to 90th percentile. */
  public void printSummary() {
    Map<String, List<Double>> byPhase = new LinkedHashMap<>();
    for (Map<String, Double> round : rounds) {
      round.forEach((phase, ms) -> byPhase.computeIfAbsent(phase, k -> new ArrayList<>()).add(ms));
    }
    StringJoiner phases = new StringJoiner(", ");
    byPhase.forEach(
        (phase, values) ->
            phases.add(
                String.format(
                    Locale.ROOT,
                    "%s %.0f (p90 %.0f)",
                    phase,
                    percentile(values, 0.5),
                    percentile(values, 0.9))));
    System.out.printf(
        Locale.ROOT,
        "BENCH %s medians over %d rounds: total %.0f ms (p10 %.0f, p90 %.0f) [%s]%n",
        name,
        totals.size(),
        median(),
        percentile(totals, 0.1),
        p90(),
        phases);
  }

  /**
   * Round by round, this path's total less {@code other}'s (both ran in the same round): the
   * differences' median, 10th and 90th percentile, their median as a share of {@code other}'s
   * median total, in how many rounds this path took longer, and the median's confidence interval
   * (see {@link #interval}): the noise band a change has to move the figure out of. Paired, what
   * the machine did in a round weighs on both totals and cancels; the ratio of the two medians can
   * set one round's total against another's.
   */
  public String pairedAgainst(Waterfall other) {
    List<Double> differences = differences(other);
    int longer = (int) differences.stream().filter(d -> d > 0).count();
    double median = percentile(differences, 0.5);
    double base = other.median();
    Interval band = interval(differences);
    return String.format(
        Locale.ROOT,
        "paired by round: %+.0f ms (p10 %+.0f, p90 %+.0f), %+.1f%% of the other's median, longer"
            + " in %d of %d rounds; the median's %.0f%% interval %+.0f to %+.0f ms (%+.1f%% to"
            + " %+.1f%%)",
        median,
        percentile(differences, 0.1),
        percentile(differences, 0.9),
        100 * median / base,
        longer,
        differences.size(),
        100 * band.confidence(),
        band.low(),
        band.high(),
        100 * band.low() / base,
        100 * band.high() / base);
  }

  /**
   * Whether a target of "this path at most {@code percent}% longer than {@code other}" is shown:
   * met when the whole interval of the paired median lies under it, missed when the whole of it
   * lies over it, and otherwise not shown either way by these rounds.
   */
  public String verdict(Waterfall other, double percent) {
    Interval band = interval(differences(other));
    double high = 100 * band.high() / other.median();
    double low = 100 * band.low() / other.median();
    String verdict = high < percent ? "met" : low > percent ? "missed" : "not shown either way";
    return String.format(
        Locale.ROOT,
        "target under %.0f%%: %s (the paired median's %.0f%% interval is %+.1f%% to %+.1f%%)",
        percent,
        verdict,
        100 * band.confidence(),
        low,
        high);
  }

  private List<Double> differences(Waterfall other) {
    int n = Math.min(totals.size(), other.totals.size());
    List<Double> differences = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      differences.add(totals.get(i) - other.totals.get(i));
    }
    return differences;
  }

  /** An interval of differences and the confidence with which it holds their true median. */
  record Interval(double low, double high, double confidence) {}

  /**
   * The distribution-free confidence interval of a median (the sign test's): with {@code n} values
   * sorted, the k-th smallest and the k-th largest hold the true median with probability {@code 1 -
   * 2 P(B < k)}, B binomial(n, 1/2), whatever the values' distribution. Rounds of a benchmark are
   * neither normal nor free of outliers (a JIT compilation, a GC, a checkpoint), which rules out a
   * t interval. k is the largest whose confidence is at least 95%; with fewer than 6 values none
   * reaches it, and the whole range is given with what it reaches.
   */
  static Interval interval(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    if (n == 0) {
      return new Interval(Double.NaN, Double.NaN, 0);
    }
    // below[j] = P(B < j) = P(B <= j - 1)
    double[] below = new double[n + 2];
    double mass = Math.pow(0.5, n); // P(B = 0)
    for (int j = 1; j <= n + 1; j++) {
      below[j] = below[j - 1] + mass;
      mass = mass * (n - (j - 1)) / j; // P(B = j) from P(B = j - 1)
    }
    int k = 1;
    while (k + 1 <= (n + 1) / 2 && 1 - 2 * below[k + 1] >= 0.95) {
      k++;
    }
    return new Interval(sorted.get(k - 1), sorted.get(n - k), 1 - 2 * below[k]);
  }

  /** Nearest-rank percentile. */
  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
