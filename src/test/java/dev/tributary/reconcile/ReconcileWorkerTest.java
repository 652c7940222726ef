package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReconcileWorkerTest {

  @Test
  void shouldMakeATableDueWhenItsJobChangesStateBetweenResyncs() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    world.converge(id);
    ReconcileWorker worker =
        new ReconcileWorker(
            world.store,
            world.reconciler,
            world.flink,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 1, Duration.ofSeconds(1), 1, Duration.ZERO),
            "w");

    worker.watch();
    worker.watch();
    world.flink.fail(world.status(id).jobId());
    worker.watch();

    assertThat(world.store.markedDue).containsExactly(List.of(id), List.of(), List.of(id));
  }

  @Test
  void shouldBackOffExponentiallyUpToFiveMinutes() {
    assertThat(ReconcileWorker.backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(ReconcileWorker.backoff(2)).isEqualTo(Duration.ofSeconds(3));
    assertThat(ReconcileWorker.backoff(3)).isEqualTo(Duration.ofMillis(4500));
    assertThat(ReconcileWorker.backoff(40)).isEqualTo(Duration.ofMinutes(5));
  }
}
