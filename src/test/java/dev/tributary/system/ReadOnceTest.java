package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReadOnceTest {

  @Test
  void shouldReadEachKeyOnceWithinAScopeAndEveryTimeOutsideOne() {
    AtomicInteger reads = new AtomicInteger();

    List<Long> inside =
        ReadOnce.within(
            () ->
                List.of(
                    ReadOnce.read(List.of("offsets", "a"), () -> (long) reads.incrementAndGet()),
                    ReadOnce.read(List.of("offsets", "b"), () -> (long) reads.incrementAndGet()),
                    ReadOnce.read(List.of("offsets", "a"), () -> (long) reads.incrementAndGet()),
                    ReadOnce.within(
                        () ->
                            ReadOnce.read(
                                List.of("offsets", "b"), () -> (long) reads.incrementAndGet()))));
    long outside1 = ReadOnce.read(List.of("offsets", "a"), () -> (long) reads.incrementAndGet());
    long outside2 = ReadOnce.read(List.of("offsets", "a"), () -> (long) reads.incrementAndGet());

    assertThat(inside).containsExactly(1L, 2L, 1L, 2L);
    assertThat(List.of(outside1, outside2)).containsExactly(3L, 4L);
  }

  @Test
  void shouldKeepANullAnswerButNotAFailure() {
    AtomicInteger reads = new AtomicInteger();

    ReadOnce.within(
        () -> {
          assertThat(
                  (Object)
                      ReadOnce.read(
                          "gone",
                          () -> {
                            reads.incrementAndGet();
                            return null;
                          }))
              .isNull();
          ReadOnce.read("gone", () -> reads.incrementAndGet());
          assertThatThrownBy(
                  () ->
                      ReadOnce.read(
                          "down",
                          () -> {
                            reads.incrementAndGet();
                            throw new IllegalStateException("Kafka is down");
                          }))
              .hasMessage("Kafka is down");
          assertThat((Integer) ReadOnce.read("down", () -> reads.incrementAndGet())).isEqualTo(3);
          return null;
        });

    assertThat(reads).hasValue(3);
  }

  @Test
  void shouldAwaitAReadStartedAheadWhichRunsBesideTheCaller() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger reads = new AtomicInteger();
    AtomicReference<String> thread = new AtomicReference<>();

    String answer =
        ReadOnce.within(
            () -> {
              ReadOnce.ahead(
                  "topic",
                  () -> {
                    thread.set(Thread.currentThread().getName());
                    reads.incrementAndGet();
                    started.countDown();
                    await(release);
                    return "ahead";
                  });
              ReadOnce.ahead("topic", () -> "started twice"); // already under way: not again
              await(started); // under way before anyone reads it
              release.countDown();
              String first = ReadOnce.read("topic", () -> "read " + reads.incrementAndGet());
              String again = ReadOnce.read("topic", () -> "read " + reads.incrementAndGet());
              assertThat(again).isEqualTo(first);
              return first;
            });

    assertThat(answer).isEqualTo("ahead");
    assertThat(reads).hasValue(1);
    assertThat(thread.get()).isEqualTo("beside");
  }

  @Test
  void shouldThrowWhatAReadAheadThrewAndReadAgainAfterIt() {
    AtomicInteger reads = new AtomicInteger();

    ReadOnce.within(
        () -> {
          ReadOnce.ahead(
              "down",
              () -> {
                throw new IllegalStateException("Kafka is down");
              });
          assertThatThrownBy(() -> ReadOnce.read("down", reads::incrementAndGet))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage("Kafka is down");
          assertThat((Integer) ReadOnce.read("down", reads::incrementAndGet)).isEqualTo(1);
          return null;
        });
  }

  @Test
  void shouldStartNothingAheadOutsideAScope() throws Exception {
    AtomicInteger reads = new AtomicInteger();

    ReadOnce.ahead("topic", reads::incrementAndGet);
    Thread.sleep(50);

    assertThat(reads).hasValue(0);
    assertThat((Integer) ReadOnce.read("topic", () -> 7)).isEqualTo(7);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
