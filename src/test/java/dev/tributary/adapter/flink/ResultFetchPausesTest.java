package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How long a statement's result waits between two asks: a plan briefly, a job at doubling pauses up
 * to a cap that the job statements waiting on one gateway share.
 */
class ResultFetchPausesTest {

  @Test
  void shouldTellAStatementThatOnlyPlansFromOneThatRunsAJob() {
    assertThat(GatewayFlinkSql.plansOnly("EXPLAIN CHANGELOG_MODE SELECT 1")).isTrue();
    assertThat(GatewayFlinkSql.plansOnly("  describe `tributary_probe_1`")).isTrue();
    assertThat(GatewayFlinkSql.plansOnly("SHOW TABLES")).isTrue();
    assertThat(GatewayFlinkSql.plansOnly("INSERT INTO t SELECT 1")).isFalse();
    assertThat(GatewayFlinkSql.plansOnly("SELECT * FROM t")).isFalse();
    assertThat(GatewayFlinkSql.plansOnly("EXECUTE STATEMENT SET BEGIN END")).isFalse();
    assertThat(GatewayFlinkSql.plansOnly("EXPLAINED")).isFalse();
  }

  @Test
  void shouldAskForAPlanEvery16MsAndForALoneJobEvery50Ms() {
    assertThat(pauses(true, 1)).containsExactly(2L, 4L, 8L, 16L, 16L, 16L, 16L, 16L, 16L);
    assertThat(pauses(true, 30)).containsExactly(2L, 4L, 8L, 16L, 16L, 16L, 16L, 16L, 16L);
    assertThat(pauses(false, 1)).containsExactly(2L, 4L, 8L, 16L, 32L, 50L, 50L, 50L, 50L);
    // A statement's result that is asked for counts itself; none counted is still one.
    assertThat(pauses(false, 0)).isEqualTo(pauses(false, 1));
  }

  @Test
  void shouldShareTheGatewaysAsksAmongTheJobsWaiting() {
    assertThat(pauses(false, 2)).containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 100L, 100L, 100L);
    // An apply's 4 concurrent submissions are asked as every statement was before the sharing.
    assertThat(pauses(false, 4)).containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 200L, 200L);
    assertThat(pauses(false, 500)).isEqualTo(pauses(false, 4));
    for (int waiting = 1; waiting <= 4; waiting++) {
      long cap = pauses(false, waiting).get(8);
      // Once ramped up, all of them together ask 20 times a second.
      assertThat(waiting * 1000.0 / cap).isEqualTo(20.0);
    }
  }

  private static List<Long> pauses(boolean plansOnly, int waiting) {
    List<Long> pauses = new ArrayList<>();
    long pause = GatewayFlinkSql.FIRST_PAUSE_MS;
    for (int i = 0; i < 9; i++) {
      pauses.add(pause);
      pause = GatewayFlinkSql.nextPause(pause, plansOnly, waiting);
    }
    return pauses;
  }
}
