package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import dev.tributary.port.FlinkJobs;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
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
                Duration.ofMillis(10), 1, Duration.ofSeconds(1), 1, Duration.ZERO, true),
            "w");

    worker.watch();
    worker.watch();
    world.flink.fail(world.status(id).jobId());
    worker.watch();

    assertThat(world.store.markedDue).containsExactly(List.of(id), List.of(), List.of(id));
  }

  @Test
  void shouldMakeOneCallToFlinkAndOneToKafkaPerBatchWhenNothingChanged() {
    FakeWorld world = new FakeWorld();
    converged(world, 20);
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(Duration.ofMillis(10), 20, Duration.ofSeconds(1), 2));
    world.calls.clear();

    try {
      assertThat(worker.runOnce()).isEqualTo(20);
    } finally {
      worker.stop();
    }

    Map<String, Long> calls = new TreeMap<>();
    world.calls.forEach((k, v) -> calls.put(k, v.sum()));
    assertThat(calls)
        .containsExactly(entry("flinkJobs.observe", 1L), entry("kafka.describeAll", 1L));
  }

  @Test
  void shouldAskNoJobManagerForABatchOfNewTablesAndDescribeOnlyTheirTopics() {
    FakeWorld world = new FakeWorld();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(world.create("CREATE MATERIALIZED TABLE n" + i + " AS SELECT order_id FROM o"));
    }
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 20, Duration.ofSeconds(1), 3, Duration.ofMinutes(1), true));
    world.calls.clear();
    try {
      assertThat(worker.runOnce()).isEqualTo(3);
      assertThat(world.calls("flinkJobs.observe"))
          .as("no pass wrote these rows: none of their jobs can exist yet")
          .isZero();
      assertThat(worker.observations()).isZero();
      assertThat(world.calls("kafka.describeAll")).as("their three topics at once").isEqualTo(1);
      assertThat(world.calls).as("no pass describes its own").doesNotContainKey("kafka.describe");
      for (UUID id : ids) {
        assertThat(world.status(id).jobId()).as("each pass went on to submit its job").isNotNull();
      }

      // Written now: the next batch of them looks at the JobManagers again.
      worker.runOnce();
      assertThat(world.calls("flinkJobs.observe")).isEqualTo(1);
      assertThat(world.flink.live()).hasSize(3);
    } finally {
      worker.stop();
    }
  }

  @Test
  void shouldSubmitTheJobOnceWhenThePassLosesItsClaimWhileTheSessionIsPrepared() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE n AS SELECT order_id FROM o");
    AtomicBoolean stolen = new AtomicBoolean();
    // A gateway slower than the lease: the claim runs out while the job's tables are declared.
    world.flink.onStatement =
        (session, statement) -> {
          if (session != null
              && session.containsKey(JobSubmission.FIXED_JOB_ID)
              && !statement.startsWith("INSERT")
              && stolen.compareAndSet(false, true)) {
            synchronized (world.store) {
              world.store.tokens.put(id, UUID.randomUUID());
            }
          }
        };
    ReconcileWorker worker = oneThread(world, Duration.ofMinutes(1));
    try {
      worker.runOnce();
    } finally {
      worker.stop();
    }

    assertThat(stolen).isTrue();
    assertThat(world.status(id).pipelineName())
        .as("the job's intent was written while the claim held")
        .isNotNull();
    assertThat(world.flink.submissions)
        .as("the job went out with its fixed id; its next pass adopts it")
        .isEqualTo(1);
    world.flink.onStatement = null;
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.flink.submissions).isEqualTo(1);
    assertThat(world.flink.live()).hasSize(1);
  }

  @Test
  void shouldLetTheFirstPassOfANewTableMeetAFlinkOutageAtItsFirstCallAndWait() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE n AS SELECT order_id FROM o");
    world.flink.down = true;
    ReconcileWorker worker = oneThread(world, Duration.ofMinutes(1));
    try {
      worker.runOnce();

      TableStatus.Condition ready = world.status(id).condition(TableStatus.READY);
      assertThat(ready.reason()).isEqualTo(TableStatus.Reason.DependencyUnavailable);
      assertThat(ready.message()).startsWith("Waiting for FLINK");
      assertThat(world.status(id).jobId()).isNull();
      assertThat(world.flink.jobs).isEmpty();
    } finally {
      worker.stop();
    }
    world.flink.down = false;
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.flink.live()).hasSize(1);
  }

  @Test
  void shouldShareOneLookAtFlinkAndKafkaAcrossBatchesOfRowsNothingTouchedSinceIt()
      throws Exception {
    FakeWorld world = new FakeWorld();
    List<UUID> ids = converged(world, 6);
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 2, Duration.ofSeconds(1), 2, Duration.ofMinutes(1), true));
    Thread.sleep(5); // the rows' last writes are strictly before the first look
    world.calls.clear();
    try {
      // Three batches of two: every row once.
      worker.runOnce();
      worker.runOnce();
      worker.runOnce();
      assertThat(world.calls("flinkJobs.observe"))
          .as("one overview for three batches of rows nothing wrote since")
          .isEqualTo(1);
      assertThat(world.calls("kafka.describeAll")).isEqualTo(1);
      assertThat(worker.observations()).isEqualTo(1);

      // Rows 0 and 1 again: this worker released them after that look, so it looks again.
      worker.runOnce();
      assertThat(worker.observations()).isEqualTo(2);

      // A job fails, and a pass records it: row 3 has a write newer than the second look.
      world.flink.fail(world.status(ids.get(3)).jobId());
      world.store.saveStatus(
          ids.get(3),
          null,
          world.store.rows.get(ids.get(3)).phase,
          world.store.rows.get(ids.get(3)).observedGeneration,
          world.status(ids.get(3)));
      worker.runOnce(); // rows 2 and 3

      assertThat(world.calls("flinkJobs.observe"))
          .as("a row written after the look makes its batch look again")
          .isEqualTo(3);
      assertThat(worker.observations()).isEqualTo(3);
      assertThat(world.store.rows.get(ids.get(3)).phase).isNotEqualTo(Phase.RUNNING);
      assertThat(world.store.rows.get(ids.get(2)).phase).isEqualTo(Phase.RUNNING);
    } finally {
      worker.stop();
    }
  }

  @Test
  void shouldWatchJobsBeforeEveryClaimWhileABacklogIsWorked() {
    FakeWorld world = new FakeWorld();
    for (int i = 0; i < 6; i++) {
      world.create("CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id FROM o");
    }
    // A backlog of five claims that find rows, then nothing due; the store's calls in order.
    List<String> calls = new CopyOnWriteArrayList<>();
    AtomicInteger claims = new AtomicInteger();
    ReconcileStore backlog =
        recording(
            world.store,
            (method, result) -> {
              if (method.equals("claim")) {
                calls.add(claims.incrementAndGet() > 5 ? "nothing due" : "claim");
              } else if (method.equals("markDue")) {
                calls.add("watch");
              }
            },
            method -> method.equals("claim") && claims.get() >= 5);
    // Rounds only when a pass ends or the test wakes the worker; the watch due at every chance.
    ReconcileWorker worker =
        new ReconcileWorker(
            backlog,
            world.reconciler,
            world.countedJobs,
            world.countedTopics,
            new ReconcileWorker.Settings(
                Duration.ofHours(1), 2, Duration.ofSeconds(1), 2, Duration.ZERO, true),
            "w",
            ReconcileMetrics.NONE);
    worker.start();
    try {
      worker.wake();
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("nothing due"));
    } finally {
      worker.stop();
    }
    List<String> claimsOnly = calls.stream().filter(c -> !c.equals("watch")).toList();
    assertThat(claimsOnly.subList(0, 5)).containsOnly("claim");
    for (int i = 0; i < calls.size(); i++) {
      if (!calls.get(i).equals("watch")) {
        assertThat(i).as("a watch before claim %s of %s", i, calls).isPositive();
        assertThat(calls.get(i - 1))
            .as("what came before call %s of %s", i, calls)
            .isEqualTo("watch");
      }
    }
  }

  /**
   * A row made due by a commit is claimed before the round's sweep: at 10,000 settled tables the
   * sweep takes a few hundred milliseconds, which a CREATE would otherwise wait for.
   */
  @Test
  void shouldClaimADueRowBeforeTheRoundsSweep() {
    FakeWorld world = new FakeWorld();
    world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    List<String> calls = new CopyOnWriteArrayList<>();
    ReconcileStore store =
        recording(
            world.store,
            (method, result) -> {
              if (method.equals("claim") || method.equals("beginSweep")) {
                calls.add(method);
              }
            },
            method -> false);
    // No poll in the test's time: the rounds are the test's wake and what the passes ask for.
    ReconcileWorker worker =
        worker(
            world,
            store,
            new ReconcileWorker.Settings(
                Duration.ofHours(1), 1, Duration.ofSeconds(1), 1, Duration.ofHours(1), true));
    worker.start();
    try {
      worker.wake();
      await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("beginSweep"));
    } finally {
      worker.stop();
    }
    assertThat(calls).as("the store's claims and sweeps, in order").startsWith("claim");
    assertThat(calls.indexOf("claim")).isLessThan(calls.indexOf("beginSweep"));
  }

  /**
   * A table whose job changes state while a pass holds it is made due again once the pass gives it
   * back: the release writes the pass's own next look, which would undo the watch's mark and put
   * the table behind every row already due.
   */
  @Test
  void shouldMakeATableDueAgainWhenTheWatchMarkedItWhileAPassHeldIt() throws Exception {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    ReconcileWorker worker = oneThread(world, Duration.ZERO);
    ExecutorService pass = Executors.newSingleThreadExecutor();
    try {
      worker.watch(); // no job yet
      world.flink.insertDelay = Duration.ofMillis(500);
      Future<Integer> claimed = pass.submit(worker::runOnce); // submits its job, slowly
      await().atMost(Duration.ofSeconds(5)).until(() -> world.flink.insertsUnderway.get() == 1);
      // A job of the table's appears (one it had submitted before, say) while the pass holds it.
      synchronized (world.flink) {
        FakeWorld.Flink.Job stray =
            new FakeWorld.Flink.Job("stray", "tributary-" + id + "-0000000a", null);
        stray.state = FlinkJobs.JobState.CANCELED;
        world.flink.jobs.put(stray.id, stray);
      }
      worker.watch();
      assertThat(world.store.markedDue).containsExactly(List.of(), List.of(id));

      assertThat(claimed.get(5, TimeUnit.SECONDS)).isOne();
      assertThat(world.store.markedDue)
          .as("made due again after the release")
          .containsExactly(List.of(), List.of(id), List.of(id));
    } finally {
      pass.shutdownNow();
      worker.stop();
    }
  }

  /**
   * While a job this worker submitted starts, the watch looks every {@link
   * ReconcileWorker#STARTING_WATCH} instead of at its interval: behind a backlog, its mark is what
   * gets a started job's table a pass. Two seconds later it is back to its interval.
   */
  @Test
  void shouldWatchMoreOftenWhileAJobItSubmittedStarts() throws Exception {
    FakeWorld world = new FakeWorld();
    // Its tasks deploy for longer than the submitting pass watches it (JobSteps.SUBMITTED_WATCH).
    world.flink.startsAs = FlinkJobs.JobState.DEPLOYING;
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    ReconcileWorker worker = oneThread(world, Duration.ofHours(1));
    try {
      worker.watch();
      worker.watch(); // within the hour: no look
      assertThat(world.store.markedDue).containsExactly(List.of());

      assertThat(worker.runOnce()).isOne(); // submits the table's job
      Thread.sleep(ReconcileWorker.STARTING_WATCH.toMillis() + 50);
      worker.watch();
      assertThat(world.store.markedDue)
          .as("a look %s after the submission", ReconcileWorker.STARTING_WATCH)
          .containsExactly(List.of(), List.of(id));

      Thread.sleep(JobSteps.STARTING.toMillis() + 100);
      worker.watch();
      assertThat(world.store.markedDue).as("back to the hour").hasSize(2);
    } finally {
      worker.stop();
    }
  }

  /**
   * A table the watch marked because its job changed is looked at afresh by the claim that takes
   * it: a look another claim took before the watch's (after the table's last release) still shows
   * the job deploying, and with the change already remembered by the watch, the table would wait
   * for its next look by time, behind any backlog.
   */
  @Test
  void shouldLookAgainForATableTheWatchMarkedRatherThanTakeAnOlderLook() throws Exception {
    FakeWorld world = new FakeWorld();
    world.flink.startsAs = FlinkJobs.JobState.DEPLOYING;
    UUID a = world.create("CREATE MATERIALIZED TABLE a AS SELECT order_id FROM o");
    UUID b = world.create("CREATE MATERIALIZED TABLE b AS SELECT order_id FROM o");
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(
                Duration.ofHours(1), 2, Duration.ofSeconds(5), 2, Duration.ofHours(1), true));
    try {
      for (int i = 0;
          i < 10 && (world.status(a).jobId() == null || world.status(b).jobId() == null);
          i++) {
        worker.runOnce();
      }
      String jobA = world.status(a).jobId();
      assertThat(jobA).isNotNull();
      assertThat(world.status(b).jobId()).isNotNull();
      Thread.sleep(ReconcileWorker.STARTING_WATCH.toMillis() + 50);
      worker.watch(); // both jobs deploying: new, so marked
      worker.runOnce(); // both looked at: CREATING

      world.store.leased.add(a); // held elsewhere: the claim takes b alone
      assertThat(worker.runOnce()).isOne(); // a look taken after a's release
      world.store.leased.remove(a);
      world.flink.jobs.get(jobA).state = FlinkJobs.JobState.RUNNING;
      Thread.sleep(ReconcileWorker.STARTING_WATCH.toMillis() + 50);
      worker.watch(); // sees a's job running, and marks a
      assertThat(world.store.markedDue.get(world.store.markedDue.size() - 1)).containsExactly(a);

      world.store.leased.add(b);
      assertThat(worker.runOnce()).isOne(); // a alone
      assertThat(world.phase(a)).isEqualTo(Phase.RUNNING);
    } finally {
      worker.stop();
    }
  }

  /** A worker that watches every call, over a store that refuses one mark while {@code refuse}. */
  private static ReconcileWorker watching(FakeWorld world, AtomicBoolean refuse) {
    ReconcileStore store =
        around(
            world.store,
            (method, args, call) -> {
              if (method.equals("markDue")
                  && !((Collection<?>) args[0]).isEmpty()
                  && refuse.getAndSet(false)) {
                throw new IllegalStateException("deadlock detected");
              }
              return call.call();
            });
    return worker(
        world,
        store,
        new ReconcileWorker.Settings(
            Duration.ofHours(1), 20, Duration.ofSeconds(5), 1, Duration.ZERO, true));
  }

  /**
   * A watch whose marking fails (the database refused the update) forgets nothing: the next watch
   * finds the same changed job and marks its table, where remembering the job's state first lost
   * the change, and the table waited for its next look by time.
   */
  @Test
  void shouldMarkAChangedJobAgainWhenTheWatchFailedToMarkIt() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    assertThat(world.converge(id)).isEqualTo(Phase.RUNNING);
    AtomicBoolean refuse = new AtomicBoolean();
    ReconcileWorker worker = watching(world, refuse);
    worker.watch(); // the job RUNNING, as the pass left it
    refuse.set(true);
    int marked = world.store.markedDue.size();
    synchronized (world.flink) {
      world.flink.jobs.values().stream()
          .filter(j -> j.name.startsWith("tributary-" + id + "-"))
          .forEach(j -> j.state = FlinkJobs.JobState.FAILED);
    }

    assertThatThrownBy(worker::watch).hasMessageContaining("deadlock");
    worker.watch();

    assertThat(world.store.markedDue.subList(marked, world.store.markedDue.size()))
        .contains(List.of(id));
  }

  /**
   * A cluster that stops answering makes its tables due (DEGRADED at once). When the database
   * refused that mark, the next watch makes them due again: the pool is not remembered as gone
   * before its tables are marked.
   */
  @Test
  void shouldMarkAPoolsTablesAgainWhenTheWatchFailedToMarkThemAsThePoolWentAway() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    assertThat(world.converge(id)).isEqualTo(Phase.RUNNING);
    AtomicBoolean refuse = new AtomicBoolean();
    ReconcileWorker worker = watching(world, refuse);
    worker.watch(); // the pool lists the table's job
    int marked = world.store.markedDue.size();
    refuse.set(true);
    world.flink.down = true;

    assertThatThrownBy(worker::watch).hasMessageContaining("deadlock");
    worker.watch();

    assertThat(world.store.markedDue.subList(marked, world.store.markedDue.size()))
        .contains(List.of(id));
  }

  /**
   * The loop does not wait for a batch: while one pass hangs in its job's submission, the other
   * thread's passes end, give their rows back and claim more. And no row is ever handed to two
   * passes at once: the slow table's job is submitted once.
   */
  @Test
  void shouldClaimMoreRowsForAnIdleThreadWhileAnotherPassStillRuns() {
    FakeWorld world = new FakeWorld();
    world.create("CREATE MATERIALIZED TABLE slow AS SELECT order_id FROM o");
    for (int i = 0; i < 3; i++) {
      world.converge(
          world.create("CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id FROM o"));
    }
    int converged = world.flink.submissions;
    world.flink.insertDelay = Duration.ofMillis(1500);
    AtomicInteger claimsDuringTheSubmission = new AtomicInteger();
    ReconcileStore store =
        recording(
            world.store,
            (method, result) -> {
              if (method.equals("claim")
                  && !((List<?>) result).isEmpty()
                  && world.flink.insertsUnderway.get() > 0) {
                claimsDuringTheSubmission.incrementAndGet();
              }
            },
            method -> false);
    ReconcileWorker worker =
        worker(
            world,
            store,
            new ReconcileWorker.Settings(
                Duration.ofHours(1), 20, Duration.ofSeconds(5), 2, Duration.ofSeconds(2), true));
    worker.start();
    try {
      worker.wake();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> world.flink.submissions > converged && world.flink.insertsUnderway.get() == 0);
    } finally {
      worker.stop();
    }
    assertThat(claimsDuringTheSubmission)
        .as("claims that found rows while the slow table's INSERT was unanswered")
        .hasValueGreaterThan(1);
    assertThat(world.flink.submissions - converged).as("submissions of the slow table").isOne();
  }

  /**
   * The store, each call reported to {@code seen} with its result; a call {@code empty} names
   * answers an empty list without reaching the store.
   */
  private static ReconcileStore recording(
      ReconcileStore store, BiConsumer<String, Object> seen, Predicate<String> empty) {
    return around(
        store,
        (method, args, call) -> {
          if (empty.test(method)) {
            seen.accept(method, List.of());
            return List.of();
          }
          Object result = call.call();
          seen.accept(method, result);
          return result;
        });
  }

  /** What a proxy of the store does with a call: {@code call} passes it on to the store. */
  private interface Around {
    Object handle(String method, Object[] args, Callable<Object> call) throws Exception;
  }

  /** The store, each call handed to {@code around} first. */
  private static ReconcileStore around(ReconcileStore store, Around around) {
    return (ReconcileStore)
        Proxy.newProxyInstance(
            ReconcileStore.class.getClassLoader(),
            new Class<?>[] {ReconcileStore.class},
            (proxy, method, args) ->
                around.handle(
                    method.getName(),
                    args,
                    () -> {
                      try {
                        return method.invoke(store, args);
                      } catch (InvocationTargetException e) {
                        if (e.getCause() instanceof Error error) {
                          throw error;
                        }
                        throw e.getCause() instanceof Exception cause ? cause : e;
                      }
                    }));
  }

  /** {@code n} tables, each with its job running. */
  private static List<UUID> converged(FakeWorld world, int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(world.create("CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id FROM o"));
    }
    ids.forEach(world::converge);
    return ids;
  }

  /** A worker whose calls to Flink and Kafka the world counts, its pass threads started. */
  /**
   * A counted worker of one pass thread that claims one row at a time, watching every {@code
   * watch}.
   */
  private static ReconcileWorker oneThread(FakeWorld world, Duration watch) {
    return countedWorker(
        world,
        new ReconcileWorker.Settings(
            Duration.ofHours(1), 1, Duration.ofSeconds(5), 1, watch, true));
  }

  private static ReconcileWorker countedWorker(FakeWorld world, ReconcileWorker.Settings settings) {
    ReconcileWorker worker = worker(world, world.store, settings);
    worker.startPassesOnly();
    return worker;
  }

  /** A worker over {@code store} (the world's, seen through a proxy), its threads not started. */
  private static ReconcileWorker worker(
      FakeWorld world, ReconcileStore store, ReconcileWorker.Settings settings) {
    return new ReconcileWorker(
        store,
        world.reconciler,
        world.countedJobs,
        world.countedTopics,
        settings,
        "w",
        ReconcileMetrics.NONE);
  }

  @Test
  void shouldBackOffExponentiallyUpToFiveMinutesWithJitter() {
    assertThat(ReconcileWorker.backoff(1))
        .isBetween(Duration.ofSeconds(2), Duration.ofMillis(2400));
    assertThat(ReconcileWorker.backoff(2))
        .isBetween(Duration.ofSeconds(3), Duration.ofMillis(3600));
    assertThat(ReconcileWorker.backoff(3))
        .isBetween(Duration.ofMillis(4500), Duration.ofMillis(5400));
    assertThat(ReconcileWorker.backoff(40)).isBetween(Duration.ofMinutes(5), Duration.ofMinutes(6));
    List<Duration> draws = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      draws.add(ReconcileWorker.backoff(4));
    }
    assertThat(new HashSet<>(draws)).as("jittered").hasSizeGreaterThan(1);
  }
}
