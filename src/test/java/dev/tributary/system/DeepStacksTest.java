package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

class DeepStacksTest {

  /** Recursion a few hundred bytes a frame deep: far beyond 1 MiB at this depth. */
  private static int depth(int n) {
    return n == 0 ? 0 : 1 + depth(n - 1);
  }

  private static final int DEEP = 300_000;

  @Test
  void shouldRunWhatOverflowsAnOrdinaryThreadsStack() throws Exception {
    Object ordinary = OnThread.answer("one-mib", 1024 * 1024, () -> depth(DEEP));
    assertThat(ordinary)
        .as("the recursion needs more than 1 MiB")
        .isInstanceOf(StackOverflowError.class);

    assertThat(DeepStacks.call(() -> depth(DEEP))).isEqualTo(DEEP);
  }

  @Test
  void shouldThrowWhatTheWorkThrewAsItWas() {
    IllegalArgumentException refused = new IllegalArgumentException("no");
    assertThatThrownBy(
            () ->
                DeepStacks.call(
                    () -> {
                      throw refused;
                    }))
        .isSameAs(refused);
    assertThatThrownBy(() -> DeepStacks.call(() -> depth(Integer.MAX_VALUE)))
        .isInstanceOf(StackOverflowError.class);
    assertThatThrownBy(
            () ->
                DeepStacks.call(
                    () -> {
                      throw new IOException("checked");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void shouldRunAllOfAnOwnThreadsWorkOnOneThread() {
    ExecutorService own = DeepStacks.ownThread("own");
    try {
      Thread first = DeepStacks.call(own, Thread::currentThread);
      Thread second = DeepStacks.call(own, Thread::currentThread);
      assertThat(second).isSameAs(first).isNotSameAs(Thread.currentThread());
      assertThat(first.getName()).isEqualTo("own");
      assertThat(first.getContextClassLoader()).isSameAs(DeepStacks.class.getClassLoader());
    } finally {
      own.shutdown();
    }
  }

  @Test
  void shouldCancelTheWorkAndKeepTheInterruptWhenTheCallerIsInterrupted() throws Exception {
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(
              () ->
                  DeepStacks.call(
                      () -> {
                        Thread.sleep(10_000);
                        return 1;
                      }))
          .isInstanceOf(DeepStacks.Interrupted.class);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}
