package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.flinkformat.Expectations;
import org.junit.jupiter.api.Test;

/** The reconciler reads the metrics the format jar's expectations function registers. */
class ExpectationMetricsTest {

  @Test
  void shouldReadTheMetricsTheExpectationsFunctionRegisters() {
    assertThat(ExpectationCounts.EXPECTATION_METRICS).isEqualTo(Expectations.METRIC_GROUP);
    assertThat(ExpectationCounts.metricName("a b.c")).isEqualTo(Expectations.metricName("a b.c"));
  }
}
