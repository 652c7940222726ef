package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

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
                + " in 4 of 5 rounds");
  }
}
