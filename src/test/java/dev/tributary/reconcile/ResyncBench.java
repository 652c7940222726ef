package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.Phase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * (b) A no-change resync pass over 10,000 RUNNING tables, ports faked (this benchmark only), with
 * one JobManager overview call for the pass. Prints its figures; run with ./mvnw -Pbench verify.
 */
class ResyncBench {

  static final int TABLES = 10_000;

  @Test
  void resyncOfTenThousandRunningTables() {
    FakeWorld world = new FakeWorld();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < TABLES; i++) {
      ids.add(
          world.create(
              "CREATE MATERIALIZED TABLE t"
                  + i
                  + " FRESHNESS = INTERVAL '10' SECOND AS SELECT order_id, price FROM orders"));
    }
    ids.forEach(world::converge);
    assertThat(ids).allSatisfy(id -> assertThat(world.phase(id)).isEqualTo(Phase.RUNNING));
    int submissions = world.flink.submissions;

    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      var overview = world.flink.overview(); // the one JobManager call of the pass
      for (UUID id : ids) {
        world.reconciler.reconcile(world.store.load(id).orElseThrow(), overview);
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      System.out.printf(
          "BENCH resync: %d RUNNING tables, 1 overview call, %d ms (round %d)%n",
          TABLES, millis, round + 1);
    }
    assertThat(world.flink.submissions)
        .as("a no-change pass submits nothing")
        .isEqualTo(submissions);
  }
}
