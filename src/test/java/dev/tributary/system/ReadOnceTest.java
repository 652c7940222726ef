package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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
}
