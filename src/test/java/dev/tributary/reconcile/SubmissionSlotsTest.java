package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SubmissionSlotsTest {

  @Test
  void shouldLetNoMoreSubmissionsIntoOnePoolAtOnceThanItsSlots() throws Exception {
    SubmissionSlots slots = new SubmissionSlots(2);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        int n = i;
        done.add(
            threads.submit(
                () ->
                    slots.in(
                        "default",
                        () -> {
                          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                          sleep(20);
                          inside.decrementAndGet();
                          return n;
                        })));
      }
      int sum = 0;
      for (Future<Integer> f : done) {
        sum += f.get(10, TimeUnit.SECONDS);
      }
      assertThat(sum).isEqualTo(66); // every submission ran, and gave its own answer
      assertThat(most.get()).isEqualTo(2);
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void shouldNotMakeOnePoolsSubmissionsWaitForAnothers() throws Exception {
    SubmissionSlots slots = new SubmissionSlots(1);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<String> busy = holdSlot(slots, "analytics", threads, holding, release);
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      // The analytics pool's only slot is taken; the default pool's is free.
      assertThat(
              threads.submit(() -> slots.in("default", () -> "default")).get(5, TimeUnit.SECONDS))
          .isEqualTo("default");
      release.countDown();
      assertThat(busy.get(5, TimeUnit.SECONDS)).isEqualTo("analytics");
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void shouldNotSubmitWhenTheWaitForASlotIsInterrupted() throws Exception {
    SubmissionSlots slots = new SubmissionSlots(1);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean submitted = new AtomicBoolean();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      holdSlot(slots, "default", threads, holding, release);
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> slots.in("default", () -> submitted.getAndSet(true)))
          .hasMessageContaining("Interrupted while waiting to submit a job to default");
      assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
      assertThat(submitted).isFalse();
      release.countDown();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void shouldCallAPoolBusyWhileEverySlotIsTaken() throws Exception {
    SubmissionSlots slots = new SubmissionSlots(1);
    assertThat(slots.busy("default")).as("never used").isFalse();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      Future<String> held = holdSlot(slots, "default", threads, holding, release);
      await(holding);
      assertThat(slots.busy("default")).isTrue();
      assertThat(slots.busy("blue")).as("another pool").isFalse();
      release.countDown();
      assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo("default");
      assertThat(slots.busy("default")).as("its slot given back").isFalse();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void shouldRefuseFewerThanOneSlot() {
    assertThatThrownBy(() -> new SubmissionSlots(0))
        .hasMessageContaining("tributary.reconciler.submissions must be at least 1, not 0");
  }

  /**
   * A submission on {@code threads} that takes a slot of {@code pool}, counts {@code holding} down
   * and keeps the slot until {@code release}; it answers the pool's name.
   */
  private static Future<String> holdSlot(
      SubmissionSlots slots,
      String pool,
      ExecutorService threads,
      CountDownLatch holding,
      CountDownLatch release) {
    return threads.submit(
        () ->
            slots.in(
                pool,
                () -> {
                  holding.countDown();
                  await(release);
                  return pool;
                }));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
