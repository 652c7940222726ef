package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WaterfallTest {

  @Test
  void shouldPairEachRoundsTotalsRatherThanCompareTheTwoMedians() {
    Waterfall service = new Waterfall("service");
    Waterfall raw = new Waterfall("raw");
    // The service is longer in four rounds of five, yet its median total is the shorter one.
    double[][] rounds = {{100, 90}, {110, 100}, {500, 1000}, {510, 505}, {520, 515}};
    for (int i = 0; i < rounds.length; i++) {
      service.round();
      raw.round();
      service.total(rounds[i][0], i);
      raw.total(rounds[i][1], i);
    }

    assertThat(service.median()).isLessThan(raw.median());
    // Differences +10, +10, -500, +5, +5: nearest-rank median +5, 5 / 505 of the raw median.
    assertThat(service.pairedAgainst(raw))
        .isEqualTo(
            "paired by round: +5 ms (p10 -500, p90 +10), +1.0% of the other's median, longer"
                + " in 4 of 5 rounds; the median's 94% interval -500 to +10 ms (-99.0% to +2.0%)");
    // Five rounds reach no 95% interval: the whole range, which holds the median with 1 - 2/32.
    assertThat(service.verdict(raw, 1))
        .isEqualTo(
            "target under 1%: not shown either way (the paired median's 94% interval is -99.0% to"
                + " +2.0%)");
  }

  @Test
  void shouldTakeTheSignTestsOrderStatisticsForTheMediansInterval() {
    // The textbook ranks for 95%: the 2nd and 9th of 10, the 6th and 15th of 20, the 10th and
    // 21st of 30.
    assertThat(Waterfall.interval(ranks(10)))
        .isEqualTo(new Waterfall.Interval(2, 9, 1 - 2 * 11 / 1024.0));
    assertThat(Waterfall.interval(ranks(20)).low()).isEqualTo(6);
    assertThat(Waterfall.interval(ranks(20)).high()).isEqualTo(15);
    assertThat(Waterfall.interval(ranks(20)).confidence()).isBetween(0.958, 0.959);
    assertThat(Waterfall.interval(ranks(30)).low()).isEqualTo(10);
    assertThat(Waterfall.interval(ranks(30)).high()).isEqualTo(21);
    assertThat(Waterfall.interval(ranks(30)).confidence()).isBetween(0.957, 0.958);
  }

  @Test
  void shouldCallATargetMetOnlyWhenTheWholeIntervalIsUnderIt() {
    Waterfall service = new Waterfall("service");
    Waterfall raw = new Waterfall("raw");
    // Ten rounds of raw 1000 ms; the service 20 to 110 ms longer: interval 30 to 100 ms (the 2nd
    // and the 9th), +3% to +10%.
    for (int i = 0; i < 10; i++) {
      service.round();
      raw.round();
      service.quietTotal(1000 + 20 + 10 * ((i * 7) % 10));
      raw.quietTotal(1000);
    }
    assertThat(service.verdict(raw, 11))
        .isEqualTo("target under 11%: met (the paired median's 98% interval is +3.0% to +10.0%)");
    assertThat(service.verdict(raw, 10)).startsWith("target under 10%: not shown either way");
    assertThat(service.verdict(raw, 2)).startsWith("target under 2%: missed");
  }

  /** 1, 2, ..., n, shuffled: the interval sorts them. */
  private static List<Double> ranks(int n) {
    List<Double> values = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      values.add((double) i);
    }
    Collections.shuffle(values, new Random(n));
    return values;
  }
}
