package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServerTimingTest {

  @Test
  void shouldSumEachMetricCountItsCallsAndEndWithTheTotal() {
    ServerTiming timing = ServerTiming.begin();
    try {
      ServerTiming.add("parse", 1_250_000);
      ServerTiming.add("flinkSqlGateway", 100_000_000);
      ServerTiming.add("flinkSqlGateway", 50_000_000);
      assertThat(ServerTiming.time("run", () -> 42)).isEqualTo(42);
    } finally {
      timing.end();
    }
    ServerTiming.add("ignored", 1); // no request on this thread any more

    String header = timing.header();
    assertThat(header)
        .startsWith("parse;dur=1.3, flinkSqlGateway;dur=150.0;desc=\"2 calls\", run;dur=")
        .containsPattern(", total;dur=\\d+\\.\\d$")
        .doesNotContain("ignored");
  }

  @Test
  void shouldCountWhatACarriedCallTimesOnAnotherThreadInTheRequest() {
    ServerTiming timing = ServerTiming.begin();
    try {
      Integer answer =
          Beside.await(
              Beside.ask(
                  () -> {
                    ServerTiming.add("flinkSqlGateway", 80_000_000);
                    return 7;
                  }));
      ServerTiming.add("flinkSqlGateway", 20_000_000);
      assertThat(answer).isEqualTo(7);
    } finally {
      timing.end();
    }
    // The pool's thread is left without the request.
    assertThat(Beside.await(Beside.ask(() -> ServerTiming.time("late", () -> 1)))).isEqualTo(1);

    assertThat(timing.header())
        .startsWith("flinkSqlGateway;dur=100.0;desc=\"2 calls\", total;dur=")
        .doesNotContain("late");
  }
}
