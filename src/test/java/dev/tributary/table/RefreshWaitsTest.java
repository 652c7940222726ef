package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RefreshWaitsTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  private static TableRefresh refresh(TableRefresh.State state) {
    return new TableRefresh(
        UUID.randomUUID(),
        UUID.randomUUID(),
        1,
        TableRefresh.Trigger.MANUAL,
        null,
        Map.of(),
        1,
        state,
        1,
        null,
        null,
        null,
        null,
        null,
        null,
        false,
        Instant.EPOCH,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void shouldAnswerWhenAChangeHereEndsTheRefreshNotAtTheNextRecheck() throws Exception {
    RefreshWaits waits = new RefreshWaits(4, Duration.ofHours(1)); // only a change wakes it
    AtomicReference<TableRefresh> row = new AtomicReference<>(refresh(TableRefresh.State.RUNNING));
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch firstRead = new CountDownLatch(1);
    Future<TableRefresh> answer =
        threads.submit(
            () ->
                waits.await(
                    () -> {
                      TableRefresh read = row.get(); // read before the test may end it
                      reads.incrementAndGet();
                      firstRead.countDown();
                      return read;
                    },
                    Duration.ofSeconds(30)));
    assertThat(firstRead.await(5, TimeUnit.SECONDS)).isTrue();

    row.set(refresh(TableRefresh.State.SUCCEEDED));
    waits.changed();

    assertThat(answer.get(5, TimeUnit.SECONDS).state()).isEqualTo(TableRefresh.State.SUCCEEDED);
    assertThat(reads).hasValue(2);
  }

  @Test
  void shouldSeeAChangeMadeElsewhereByReadingAgain() throws Exception {
    RefreshWaits waits = new RefreshWaits(4);
    AtomicReference<TableRefresh> row = new AtomicReference<>(refresh(TableRefresh.State.QUEUED));
    AtomicInteger reads = new AtomicInteger();
    Future<TableRefresh> answer =
        threads.submit(
            () ->
                waits.await(
                    () -> {
                      if (reads.incrementAndGet() == 3) {
                        row.set(refresh(TableRefresh.State.FAILED)); // another replica's write
                      }
                      return row.get();
                    },
                    Duration.ofSeconds(30)));

    assertThat(answer.get(5, TimeUnit.SECONDS).state()).isEqualTo(TableRefresh.State.FAILED);
    assertThat(reads).hasValue(3);
  }

  @Test
  void shouldAnswerWhatItHasWhenTheWaitIsUp() {
    RefreshWaits waits = new RefreshWaits(4);
    long start = System.nanoTime();

    TableRefresh answer =
        waits.await(() -> refresh(TableRefresh.State.RUNNING), Duration.ofMillis(300));

    assertThat(answer.state()).isEqualTo(TableRefresh.State.RUNNING);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void shouldAnswerAGoneRefreshAtOnce() {
    assertThat(new RefreshWaits(4).await(() -> null, Duration.ofSeconds(30))).isNull();
  }

  @Test
  void shouldRefuseAWaiterBeyondTheCapWith429AndLetOneInOnceASlotFrees() throws Exception {
    RefreshWaits waits = new RefreshWaits(1);
    AtomicReference<TableRefresh> row = new AtomicReference<>(refresh(TableRefresh.State.RUNNING));
    CountDownLatch waiting = new CountDownLatch(1);
    Future<TableRefresh> first =
        threads.submit(
            () ->
                waits.await(
                    () -> {
                      waiting.countDown();
                      return row.get();
                    },
                    Duration.ofSeconds(30)));
    assertThat(waiting.await(5, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> waits.await(row::get, Duration.ofSeconds(30)))
        .isInstanceOf(ApiException.class)
        .satisfies(
            e -> assertThat(((ApiException) e).code()).isEqualTo(ErrorCode.TOO_MANY_REQUESTS));

    row.set(refresh(TableRefresh.State.CANCELLED));
    waits.changed();
    assertThat(first.get(5, TimeUnit.SECONDS).state()).isEqualTo(TableRefresh.State.CANCELLED);
    assertThat(waits.await(row::get, Duration.ofSeconds(30)).state())
        .isEqualTo(TableRefresh.State.CANCELLED);
  }
}
