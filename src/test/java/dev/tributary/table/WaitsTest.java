package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A wait wakes on a change of its own key only, and leaves nothing behind when it ends. */
class WaitsTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Waits waits = new Waits(4, Duration.ofHours(1), "too many"); // no recheck here

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void shouldReadAgainOnAChangeOfItsKeyAndNotOnAnothers() throws Exception {
    UUID mine = UUID.randomUUID();
    AtomicReference<String> row = new AtomicReference<>("CREATING");
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch read = new CountDownLatch(1);
    Future<String> answer =
        threads.submit(
            () ->
                waits.await(
                    mine,
                    () -> {
                      String value = row.get(); // read before the test may change it
                      reads.incrementAndGet();
                      read.countDown();
                      return value;
                    },
                    "RUNNING"::equals,
                    Duration.ofSeconds(30)));
    assertThat(read.await(5, TimeUnit.SECONDS)).isTrue();

    waits.changed(UUID.randomUUID()); // another table's
    assertThatThrownBy(() -> answer.get(300, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    assertThat(reads).hasValue(1);

    row.set("RUNNING");
    waits.changed(mine);
    assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo("RUNNING");
    assertThat(reads).hasValue(2);
    assertThat(waits.keys()).as("no watch is kept once no one waits").isZero();
  }

  @Test
  void shouldTakeARequestsWaitSecondsFromNoneToSixtyAndRefuseTheRestWith400() {
    assertThat(Waits.requested(null)).isZero();
    assertThat(Waits.requested(0)).isZero();
    assertThat(Waits.requested(60)).isEqualTo(Duration.ofSeconds(60));
    for (int wrong : new int[] {-1, 61}) {
      assertThatThrownBy(() -> Waits.requested(wrong))
          .isInstanceOfSatisfying(
              ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.VALIDATION_FAILED))
          .hasMessage("waitSeconds must be between 0 and 60, not " + wrong);
    }
  }

  @Test
  void shouldEndTheWaitWithWhatTheReadThrowsAndFreeItsSlot() {
    for (int i = 0; i < 5; i++) { // one more than the cap: each gives its slot back
      assertThatThrownBy(
              () ->
                  waits.await(
                      "gone",
                      () -> {
                        throw new IllegalStateException("dropped");
                      },
                      "RUNNING"::equals,
                      Duration.ofSeconds(30)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("dropped");
    }
    assertThat(waits.keys()).isZero();
  }

  @Test
  void shouldAnswerWhatItHasWhenTheWaitIsUpAndFreeItsSlot() {
    Waits one = new Waits(1, Duration.ofMillis(50), "too many");
    long start = System.nanoTime();

    assertThat(one.await("k", () -> "CREATING", "RUNNING"::equals, Duration.ofMillis(300)))
        .isEqualTo("CREATING");

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(one.await("k", () -> "RUNNING", "RUNNING"::equals, Duration.ofSeconds(30)))
        .as("the slot is free again")
        .isEqualTo("RUNNING");
    assertThat(one.keys()).isZero();
  }
}
