package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How often a refresh's running job is looked at ({@link RefreshSteps#untilItEnds}). */
class RefreshPollTest {

  static final Instant STARTED = Instant.parse("2026-12-04T12:00:00Z");

  private static Duration after(Duration elapsed, Optional<Duration> last) {
    return RefreshSteps.untilItEnds(STARTED, last, STARTED.plus(elapsed));
  }

  @Test
  void shouldLookFastOnlyAroundTheLengthOfTheLastRefresh() {
    Optional<Duration> last = Optional.of(Duration.ofSeconds(10));
    assertThat(after(Duration.ofSeconds(1), last)).isEqualTo(RefreshSteps.RUNNING_POLL);
    assertThat(after(Duration.ofMillis(8_400), last)).isEqualTo(RefreshSteps.RUNNING_POLL);
    assertThat(after(Duration.ofMillis(8_500), last)).isEqualTo(RefreshSteps.ENDING_POLL);
    assertThat(after(Duration.ofSeconds(10), last)).isEqualTo(RefreshSteps.ENDING_POLL);
    assertThat(after(Duration.ofMillis(11_500), last)).isEqualTo(RefreshSteps.ENDING_POLL);
    assertThat(after(Duration.ofMillis(11_600), last)).isEqualTo(RefreshSteps.RUNNING_POLL);
    assertThat(after(Duration.ofHours(1), last)).isEqualTo(RefreshSteps.RUNNING_POLL);
  }

  @Test
  void shouldLookAtTheUsualPaceWithoutAnEarlierRefreshOrAStart() {
    assertThat(after(Duration.ofMillis(500), Optional.empty()))
        .isEqualTo(RefreshSteps.RUNNING_POLL);
    assertThat(RefreshSteps.untilItEnds(null, Optional.of(Duration.ofSeconds(1)), Instant.now()))
        .isEqualTo(RefreshSteps.RUNNING_POLL);
  }
}
