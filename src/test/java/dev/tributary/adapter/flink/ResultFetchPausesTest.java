package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How long a statement's result waits between two asks: a plan briefly, a job at doubling pauses.
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
  void shouldAskForAPlanEvery16MsAndForAJobAtPausesDoublingTo200Ms() {
    assertThat(pauses(true)).containsExactly(2L, 4L, 8L, 16L, 16L, 16L, 16L, 16L, 16L);
    assertThat(pauses(false)).containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 200L, 200L);
  }

  private static List<Long> pauses(boolean plansOnly) {
    List<Long> pauses = new ArrayList<>();
    long pause = GatewayFlinkSql.FIRST_PAUSE_MS;
    for (int i = 0; i < 9; i++) {
      pauses.add(pause);
      pause = GatewayFlinkSql.nextPause(pause, plansOnly);
    }
    return pauses;
  }
}
