package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.adapter.flink.SteppedClock;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The reconciler against stateful in-memory fakes of Kafka, the registry and Flink. */
class ReconcilerTest {

  static final String ORDERS =
      "CREATE MATERIALIZED TABLE high_value_orders AS SELECT order_id, price FROM examples.marketplace.orders WHERE price > 50";

  FakeWorld world = new FakeWorld();

  @AfterEach
  void shouldOnlyChangePhasesAsThePhaseTableAllows() {
    assertThat(world.store.outOfTable).as("phase changes outside reconcile/DESIGN.md").isEmpty();
  }

  /** Exactly what one provisioned table should leave behind, however it got there. */
  void assertProvisionedOnce(UUID id) {
    assertThat(world.flink.live()).hasSize(1);
    assertThat(world.kafka.topics.keySet()).containsExactly("high_value_orders");
    assertThat(world.registry.subjects.keySet()).containsExactly("high_value_orders-value");
    assertThat(world.registry.subjects.get("high_value_orders-value")).hasSize(1);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.status(id).jobId()).isEqualTo(world.flink.live().get(0).id);
  }

  /** A new query for the table: an evolution. */
  void evolve(UUID id) {
    evolve(world, id);
  }

  @Test
  void shouldProvisionATableAndChangeNothingWhenReconciledAgain() {
    UUID id = world.create(ORDERS);

    world.converge(id);
    int submissions = world.flink.submissions;
    int registrations = world.registry.registrations;
    world.converge(id);
    world.converge(id);
    world.converge(id);

    assertProvisionedOnce(id);
    assertThat(world.flink.submissions).isEqualTo(submissions).isEqualTo(1);
    assertThat(world.registry.registrations).isEqualTo(registrations).isEqualTo(1);
    TableStatus status = world.status(id);
    assertThat(status.condition(TableStatus.READY).status()).isEqualTo("True");
    assertThat(status.condition(TableStatus.TOPIC_READY).status()).isEqualTo("True");
    assertThat(status.condition(TableStatus.SCHEMA_REGISTERED).status()).isEqualTo("True");
    assertThat(status.pipelineName()).matches("tributary-" + id + "-[0-9a-f]{8}");
  }

  /**
   * The accepting call's answer is kept, and the first pass takes it: it does not write that it is
   * asking Flink, as it does for a definition Flink was not asked of.
   */
  @Test
  void shouldNotWriteThatItAsksFlinkWhenTheAcceptingCallsAnswerIsKept() {
    Predicate<TableStatus> asking =
        s ->
            s.condition(TableStatus.READY) != null
                && s.condition(TableStatus.READY).message().startsWith("Validating the query");
    UUID asked = world.create(ORDERS);
    world.converge(asked);
    assertThat(world.store.statuses).anyMatch(asking);

    world = new FakeWorld();
    UUID kept = world.create(ORDERS);
    world.planner.validate(
        new ObjectName("c", "d", "high_value_orders"),
        ((Statement.CreateMaterializedTable) Parser.parse(ORDERS)).definition());
    world.converge(kept);
    assertThat(world.store.statuses).noneMatch(asking);
    assertProvisionedOnce(kept);
  }

  @Test
  void shouldRecordTheObservedGenerationInTheWriteThatRecordsRunning() {
    UUID id = world.create(ORDERS);

    world.converge(id);

    // Before, RUNNING was written at generation 0 and the pass's end wrote generation 1 after it.
    List<String> writes = world.store.writes;
    int running = writes.indexOf("RUNNING at generation 1");
    assertThat(running).as("writes: %s", writes).isPositive();
    assertThat(writes.subList(0, running)).allMatch(w -> w.endsWith("at generation 0"));
    assertThat(writes).doesNotContain("RUNNING at generation 0");
    assertThat(world.status(id).conditions())
        .allSatisfy(c -> assertThat(c.observedGeneration()).isEqualTo(1L));
  }

  @Test
  void shouldPrepareTheJobsSessionWhileItsTopicIsCreatedAndSendTheInsertOnlyOnceItExists() {
    UUID id = world.create(ORDERS);
    world.kafka.ensureDelay = Duration.ofMillis(300);
    List<String> seen = new CopyOnWriteArrayList<>();
    world.flink.onStatement =
        (session, statement) -> {
          if (session != null && session.containsKey(JobSubmission.FIXED_JOB_ID)) {
            seen.add(
                (statement.startsWith("INSERT") ? "INSERT" : "declaration")
                    + (world.kafka.topics.isEmpty() ? " before the topic" : " after the topic"));
          }
        };

    world.converge(id);

    assertThat(seen).contains("declaration before the topic").endsWith("INSERT after the topic");
    assertThat(seen).doesNotContain("INSERT before the topic");
    assertProvisionedOnce(id);
    assertThat(world.status(id).condition(TableStatus.TOPIC_READY).status()).isEqualTo("True");
  }

  @Test
  void shouldSendNoInsertWhenTheTopicCreatedBesideTheSessionFailsAndConvergeOnTheNextPass() {
    UUID id = world.create(ORDERS);
    world.kafka.ensureFailures.set(1);

    world.pass(id);

    assertThat(world.flink.executed).noneMatch(s -> s.startsWith("INSERT"));
    assertThat(world.flink.sessions.values())
        .as("the submission's session was closed")
        .noneMatch(settings -> settings.containsKey("$internal.pipeline.job-id"));
    TableStatus.Condition ready = world.status(id).condition(TableStatus.READY);
    assertThat(ready.reason()).isEqualTo(TableStatus.Reason.DependencyUnavailable);
    assertThat(ready.message()).startsWith("Waiting for KAFKA");
    assertThat(world.status(id).jobId()).isNull();

    world.converge(id);
    assertProvisionedOnce(id);
    assertThat(world.flink.submissions).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"topic", "subjects", "submit", "submitted"})
  void shouldConvergeToOneOfEverythingWhenCreateCrashesAt(String step) {
    UUID id = world.create(ORDERS);
    world.crashAt.add(step);

    world.converge(id);

    assertThat(world.crashAt).as("the crash happened").isEmpty();
    assertProvisionedOnce(id);
    assertThat(world.flink.submissions).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"stop", "submit", "submitted"})
  void shouldSuspendAndResumeFromTheSavepointWhenCrashingAt(String step) {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String first = world.status(id).jobId();

    world.change(id, spec -> spec.withStopped(true), false);
    world.crashAt.add(step.equals("stop") ? "stop" : "none");
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.STOPPED);
    assertThat(world.flink.jobs.get(first).state).isEqualTo(JobState.FINISHED);
    String savepoint = world.status(id).savepointPath();
    assertThat(savepoint).contains("savepoint-");
    assertThat(world.flink.savepointsTaken).as("one stop, one savepoint").isEqualTo(1);
    assertThat(world.flink.triggers).allSatisfy(t -> assertThat(t).matches("[0-9a-f]{32}"));

    world.change(id, spec -> spec.withStopped(false), false);
    world.crashAt.add(step.equals("stop") ? "none" : step);
    world.converge(id);

    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.restoredFrom).isEqualTo(savepoint);
              assertThat(job.name).isEqualTo(world.flink.jobs.get(first).name);
            });
    assertThat(world.flink.submissions).isEqualTo(2);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @ParameterizedTest
  @ValueSource(strings = {"cancel", "delete-topic", "delete-subjects"})
  void shouldDropEverythingWhenCrashingAt(String step) {
    UUID id = world.create(ORDERS);
    world.converge(id);

    world.drop(id);
    world.crashAt.add(step);
    world.converge(id);

    assertThat(world.store.rows).isEmpty();
    assertThat(world.flink.live()).isEmpty();
    assertThat(world.kafka.topics).isEmpty();
    assertThat(world.registry.subjects).isEmpty();
    assertThat(world.flink.prunes).contains("file:///savepoints/" + id + " keep 0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"stop", "submit", "submitted"})
  void shouldStopTheOldJobWithASavepointOnEvolutionAndStartTheNewWithoutItsStateWhenCrashingAt(
      String step) {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();

    evolve(id);
    world.crashAt.add(step);
    world.converge(id);

    // Stopped with a savepoint, never cancelled: its last transaction is committed.
    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.flink.jobs.get(old).savepoint).isNotNull();
    assertThat(world.status(id).evolution().savepointPath())
        .isEqualTo(world.flink.jobs.get(old).savepoint);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.name)
                  .startsWith("tributary-" + id + "-")
                  .isNotEqualTo(world.flink.jobs.get(old).name);
              assertThat(job.restoredFrom).isNull();
            });
  }

  @Test
  void shouldRecordAJobThatRunsSoonAfterItsSubmissionInTheSamePass() {
    UUID id = world.create(ORDERS);
    for (int i = 0; i < 20 && !world.store.events.contains("JobSubmitted"); i++) {
      world.pass(id);
    }
    assertThat(world.store.events).endsWith("JobSubmitted", "JobRunning");
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldLeaveAJobWhoseTasksDoNotRunWithinTheWatchToTheNextPass() {
    world.flink.startsAs = JobState.DEPLOYING;
    UUID id = world.create(ORDERS);
    long started = System.nanoTime();
    for (int i = 0; i < 20 && !world.store.events.contains("JobSubmitted"); i++) {
      world.pass(id);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("the pass watched the job start")
        .isGreaterThanOrEqualTo(JobSteps.SUBMITTED_WATCH.minus(JobSteps.SUBMITTED_POLL));
    assertThat(world.store.events).endsWith("JobSubmitted");
    assertThat(world.phase(id)).isEqualTo(Phase.CREATING);

    world.flink.live().forEach(j -> j.state = JobState.RUNNING);
    world.pass(id);
    assertThat(world.store.events).endsWith("JobSubmitted", "JobRunning");
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldRestartAFailedJobFromItsCheckpointThenGiveUpAfterFiveFailures() {
    UUID id = world.create(ORDERS);
    world.converge(id);

    String failed = world.status(id).jobId();
    world.flink.fail(failed);
    world.converge(id);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(job -> assertThat(job.restoredFrom).endsWith(failed + "/chk-7"));

    for (int i = 0; i < 5; i++) {
      world.flink.live().forEach(j -> world.flink.fail(j.id));
      world.converge(id);
    }

    assertThat(world.phase(id)).isEqualTo(Phase.FAILED);
    assertThat(world.status(id).detail()).isEqualTo("boom");
    assertThat(world.status(id).condition(TableStatus.READY).reason())
        .isEqualTo(TableStatus.Reason.RetriesExhausted);
    int submissions = world.flink.submissions;
    world.converge(id);
    assertThat(world.flink.submissions).as("FAILED stays failed").isEqualTo(submissions);

    world.change(
        id, spec -> spec, false); // ALTER ... RESUME of a FAILED table bumps the generation
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldSayWhatItIsWaitingForAndConvergeWhenTheDependencyReturns() {
    UUID id = world.create(ORDERS);
    world.flink.down = true;

    world.converge(id);

    assertThat(world.phase(id)).isNotEqualTo(Phase.RUNNING);
    TableStatus.Condition ready = world.status(id).condition(TableStatus.READY);
    assertThat(ready.reason()).isEqualTo(TableStatus.Reason.DependencyUnavailable);
    assertThat(ready.message()).startsWith("Waiting for FLINK");
    world.flink.down = false;
    world.kafka.down = true;
    world.converge(id);
    assertThat(world.status(id).condition(TableStatus.READY).message())
        .startsWith("Waiting for KAFKA");

    world.kafka.down = false;
    world.converge(id);
    assertProvisionedOnce(id);
  }

  @Test
  void shouldNeverAdoptATopicThatIsNotItsOwn() {
    world.kafka.ensure(new Topics.TopicSpec("high_value_orders", 3, Map.of()));
    UUID id = world.create(ORDERS);

    world.converge(id);
    world.drop(id);
    world.converge(id);

    assertThat(world.flink.submissions).isZero();
    assertThat(world.kafka.topics).containsKey("high_value_orders");
    assertThat(world.store.events).contains("TopicConflict");
  }

  @Test
  void shouldNeverAdoptAForeignTopicThatItsDescribeDidNotSee() {
    // Created a moment ago: the broker that is asked does not know of it yet, the controller does.
    world.kafka.ensure(new Topics.TopicSpec("high_value_orders", 3, Map.of()));
    world.kafka.unseen.add("high_value_orders");
    UUID id = world.create(ORDERS);

    world.converge(id);

    assertThat(world.flink.submissions).as("nothing writes into it").isZero();
    assertThat(world.phase(id)).isEqualTo(Phase.FAILED);
    assertThat(world.status(id).topic()).as("not named as the table's").isNull();
    assertThat(world.status(id).detail())
        .isEqualTo(
            "Topic high_value_orders already exists and does not belong to this table; it is not"
                + " adopted");
    assertThat(world.store.events).contains("TopicConflict");

    world.kafka.unseen.clear();
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.FAILED);
    assertThat(world.flink.submissions).isZero();

    world.drop(id);
    world.converge(id);
    assertThat(world.kafka.topics).as("a DROP leaves it alone").containsKey("high_value_orders");
  }

  @Test
  void shouldFailAnInvalidQueryOnceAndWaitForAChange() {
    world.flink.schema = List.of(new FlinkSql.Column("order_id", "INT", true));
    UUID id =
        world.create("CREATE MATERIALIZED TABLE t (order_id STRING) AS SELECT order_id FROM o");

    world.converge(id);

    assertThat(world.phase(id)).isEqualTo(Phase.FAILED);
    assertThat(world.status(id).detail())
        .isEqualTo("Column 'order_id' is declared STRING but the query produces INT");
    assertThat(world.store.events.stream().filter("InvalidQuery"::equals)).hasSize(1);
  }

  @Test
  void shouldKeepTheJobAndItsStateWhenOnlyTopicOptionsChange() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String job = world.status(id).jobId();

    world.change(
        id,
        spec ->
            spec.withDefinition(
                spec.definition().withOptions(Map.of("kafka.retention.time", "30 d"))),
        true);
    world.converge(id);

    assertThat(world.flink.submissions).isEqualTo(1);
    assertThat(world.flink.live()).singleElement().satisfies(j -> assertThat(j.id).isEqualTo(job));
    assertThat(world.kafka.topics.get("high_value_orders").configs())
        .containsEntry("retention.ms", "2592000000");
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldContinueEachSourceFromTheOffsetsTheOldJobCommittedOnEvolution() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    world.kafka.groups.put(JobSubmission.group(id), Map.of("orders", Map.of(0, 42L, 1, 7L)));
    world.flink.executed.clear();

    evolve(id);
    world.converge(id);

    String declaration =
        world.flink.executed.stream()
            .filter(st -> st.contains("'topic' = 'orders'"))
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(declaration)
        .contains("'scan.startup.mode' = 'specific-offsets'")
        .contains("'scan.startup.specific-offsets' = 'partition:0,offset:42;partition:1,offset:7'")
        .contains("'properties.group.id' = '" + JobSubmission.group(id) + "'");
  }

  @Test
  void shouldStartFromTheModeWhenTheTableIsNewOrTheModeIsFromBeginning() {
    UUID id = world.create(ORDERS.replace(" AS SELECT", " START_MODE = FROM_BEGINNING AS SELECT"));
    world.kafka.groups.put(JobSubmission.group(id), Map.of("orders", Map.of(0, 42L)));

    world.converge(id);

    assertThat(world.flink.executed)
        .anySatisfy(st -> assertThat(st).contains("'scan.startup.mode' = 'earliest-offset'"))
        .noneSatisfy(st -> assertThat(st).contains("specific-offsets"));
  }

  @Test
  void shouldRollBackToThePreviousDefinitionAndItsSavepointWhenTheNewJobFails() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();
    String oldPipeline = world.status(id).pipelineName();
    evolve(id);
    world.converge(id);
    String failing = world.status(id).jobId();
    assertThat(failing).isNotEqualTo(old);

    world.flink.fail(failing);
    world.converge(id);

    FakeWorld.Row row = world.store.rows.get(id);
    assertThat(row.failures).containsKey(2L);
    assertThat(row.spec.definition()).isEqualTo(row.versions.get(1L).definition());
    assertThat(world.status(id).pipelineName()).isEqualTo(oldPipeline);
    assertThat(world.status(id).evolution()).isNull();
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.name).isEqualTo(oldPipeline);
              assertThat(job.restoredFrom).isEqualTo(world.flink.jobs.get(old).savepoint);
            });
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  /** Places the table's definition on {@code pool}, as ALTER ... SET ('compute-pool') does. */
  private void moveTo(UUID id, String pool) {
    moveTo(world, id, pool);
  }

  private static void moveTo(FakeWorld world, UUID id, String pool) {
    world.change(
        id,
        spec -> {
          Map<String, String> options = new LinkedHashMap<>(spec.definition().options());
          options.put("compute-pool", pool);
          return spec.withDefinition(spec.definition().withOptions(options));
        },
        true);
  }

  @Test
  void shouldMoveTheSameJobToAnotherPoolFromItsSavepointAndRollBackAMoveTheNewPoolRefuses() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();

    moveTo(id, "blue");
    world.converge(id);

    String moved = world.status(id).jobId();
    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.id).isEqualTo(moved);
              assertThat(job.pool).isEqualTo("blue");
              assertThat(job.name).isEqualTo(world.flink.jobs.get(old).name);
              assertThat(job.restoredFrom).isEqualTo(world.flink.jobs.get(old).savepoint);
            });
    assertThat(world.status(id).computePool()).isEqualTo("blue");
    assertThat(world.status(id).evolution()).isNull(); // done once it runs there
    assertThat(world.store.events).contains("Moving", "MoveCompleted");
    FakeWorld.Row row = world.store.rows.get(id);
    assertThat(row.observedGeneration).isEqualTo(row.generation);

    // green's gateway refuses the job: back to blue, from the savepoint the move stopped at.
    world.flink.refusingPools.add("green");
    moveTo(id, "green");
    long failedVersion = row.version;
    world.converge(id);

    assertThat(row.failures).containsKey(failedVersion);
    assertThat(row.spec.definition().options()).containsEntry("compute-pool", "blue");
    assertThat(world.store.events).contains("MoveRolledBack");
    assertThat(world.status(id).computePool()).isEqualTo("blue");
    assertThat(world.status(id).evolution()).isNull();
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.pool).isEqualTo("blue");
              assertThat(job.restoredFrom).isEqualTo(world.flink.jobs.get(moved).savepoint);
            });
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldLookAgainSoonAtAJobThatIsStartingAndNotFastForLong() {
    SteppedClock clock = new SteppedClock(Instant.now());
    FakeWorld starting = new FakeWorld(null, clock);
    starting.flink.startsAs = JobState.CREATED;
    UUID id = starting.create(ORDERS);
    starting.converge(id);
    String job = starting.status(id).jobId();
    assertThat(starting.flink.jobs.get(job).state).isEqualTo(JobState.CREATED);

    clock.advance(Duration.ofSeconds(1)); // within JobSteps.STARTING of the job's start
    assertThat(nextLook(starting, id)).isEqualTo(JobSteps.STARTING_POLL);
    clock.advance(Duration.ofSeconds(2)); // a job still not running is looked at as before
    assertThat(nextLook(starting, id)).isEqualTo(Duration.ofMillis(200));
    starting.flink.jobs.get(job).state = JobState.RUNNING;
    assertThat(nextLook(starting, id)).isGreaterThan(Duration.ofSeconds(1));
    assertThat(starting.phase(id)).isEqualTo(Phase.RUNNING);
  }

  /**
   * A job RUNNING by Flink's word whose tasks are still deploying (DEPLOYING at the port) does not
   * make its table RUNNING: it could not take a savepoint yet, so a suspend or an ALTER sent then
   * would fail. It is looked at again soon, and the table is RUNNING once every task runs.
   */
  @Test
  void shouldNotCallATableRunningWhileItsJobsTasksAreStillDeploying() {
    SteppedClock clock = new SteppedClock(Instant.now());
    FakeWorld world = new FakeWorld(null, clock);
    world.flink.startsAs = JobState.DEPLOYING;
    UUID id = world.create(ORDERS);
    world.converge(id);
    String job = world.status(id).jobId();

    clock.advance(Duration.ofMillis(500));
    assertThat(nextLook(world, id)).isEqualTo(JobSteps.STARTING_POLL);
    assertThat(world.phase(id)).isEqualTo(Phase.CREATING);
    assertThat(world.status(id).condition(TableStatus.JOB_RUNNING).message())
        .isEqualTo("Job " + job + " is DEPLOYING");
    assertThat(world.store.events).doesNotContain("JobRunning");

    world.flink.jobs.get(job).state = JobState.RUNNING;
    nextLook(world, id);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.store.events).contains("JobRunning");
  }

  @Test
  void shouldSubmitTheEvolvedJobInThePassWhoseStopEndedTheOldOne() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();
    evolve(id);

    for (int i = 0; i < 5 && world.flink.savepointsTaken == 0; i++) {
      world.pass(id); // the new definition is validated first
    }

    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.store.events).endsWith("SavepointTaken", "JobSubmitted", "JobRunning");
    assertThat(world.flink.submissions).isEqualTo(2);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldRecordASuspendInThePassWhoseStopEndedTheJob() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    world.change(id, spec -> spec.withStopped(true), false);

    world.pass(id);

    assertThat(world.store.events).endsWith("SavepointTaken", "Suspended");
    assertThat(world.phase(id)).isEqualTo(Phase.STOPPED);
  }

  @Test
  void shouldLeaveAStopToLaterPassesWhileOtherPassesWatch() throws Exception {
    UUID id = world.create(ORDERS);
    world.converge(id);
    world.change(id, spec -> spec.withStopped(true), false);
    StartingJobs watching = world.reconciler.watching();
    for (int i = 0; i < StartingJobs.WATCHERS; i++) {
      assertThat(watching.watch()).isTrue();
    }
    try {
      world.pass(id);
    } finally {
      for (int i = 0; i < StartingJobs.WATCHERS; i++) {
        watching.done();
      }
    }

    assertThat(world.flink.savepointsTaken).isEqualTo(1);
    assertThat(world.store.events).doesNotContain("SavepointTaken");
    assertThat(world.phase(id)).isEqualTo(Phase.STOPPING);
    world.pass(id);
    assertThat(world.phase(id)).isEqualTo(Phase.STOPPED);
  }

  @Test
  void shouldAskForAYoungStopsSavepointEveryStoppingPollAndRecordItOnceWhileTheJobEnds() {
    SteppedClock clock = new SteppedClock(Instant.now());
    FakeWorld world = new FakeWorld(null, clock);
    UUID id = world.create(ORDERS);
    world.converge(id);
    String first = world.status(id).jobId();
    world.flink.stopsSlowly = true;
    evolve(world, id);

    Duration triggered = nextLook(world, id);
    for (int pass = 0; world.flink.savepointsTaken == 0 && pass < 5; pass++) {
      triggered = nextLook(world, id); // the new definition validated first
    }
    assertThat(world.flink.savepointsTaken).isEqualTo(1);
    assertThat(triggered).as("triggered").isEqualTo(Transitions.STOPPING_POLL);
    clock.advance(Duration.ofMillis(1500));
    assertThat(nextLook(world, id)).as("in progress").isEqualTo(Transitions.STOPPING_POLL);
    clock.advance(Duration.ofMillis(600));
    assertThat(nextLook(world, id))
        .as("a long savepoint")
        .isEqualTo(Reconciler.Next.soon().after());

    world.flink.jobs.get(first).savepointPending = false; // taken; the job is still ending
    nextLook(world, id);
    nextLook(world, id);
    assertThat(world.store.events.stream().filter("SavepointTaken"::equals)).hasSize(1);
    assertThat(world.flink.prunes).hasSize(1);
    assertThat(world.flink.submissions).isEqualTo(1);

    world.flink.jobs.get(first).state = JobState.FINISHED;
    nextLook(world, id);
    assertThat(world.flink.submissions).isEqualTo(2);
    assertThat(world.flink.savepointsTaken).isEqualTo(1);
  }

  private static void evolve(FakeWorld world, UUID id) {
    world.change(
        id,
        spec -> spec.withDefinition(FakeWorld.definition(ORDERS.replace("> 50", "> 90"))),
        true);
  }

  private static Duration nextLook(FakeWorld world, UUID id) {
    return world
        .reconciler
        .reconcile(world.store.load(id).orElseThrow(), world.flink.overview())
        .after();
  }

  @Test
  void shouldRollBackAMoveWhoseJobNeverRunsOnTheNewPoolOnceItsCancellationEnds() {
    SteppedClock clock = new SteppedClock(Instant.now());
    FakeWorld slow = new FakeWorld(null, clock);
    UUID id = slow.create(ORDERS);
    slow.converge(id);
    String old = slow.status(id).jobId();

    // blue takes the job but never runs it (no slot, say), and a cancel takes a while there.
    slow.flink.startsAs = JobState.CREATED;
    slow.flink.cancelsSlowly = true;
    moveTo(slow, id, "blue");
    slow.converge(id);
    String stuck = slow.status(id).jobId();
    assertThat(slow.flink.jobs.get(stuck).pool).isEqualTo("blue");
    assertThat(slow.store.events).doesNotContain("MoveRolledBack");

    clock.advance(Duration.ofMinutes(3)); // past the readiness window
    slow.converge(id);
    assertThat(slow.store.events).contains("MoveRolledBack");
    assertThat(slow.flink.jobs.get(stuck).state).isEqualTo(JobState.CANCELLING);
    int moves = (int) slow.store.events.stream().filter("Moving"::equals).count();
    slow.converge(id);
    // While it is cancelled, the table waits: no move back from blue is started.
    assertThat(slow.store.events.stream().filter("Moving"::equals).count()).isEqualTo(moves);

    slow.flink.jobs.get(stuck).state = JobState.CANCELED;
    slow.flink.startsAs = JobState.RUNNING;
    slow.converge(id);
    assertThat(slow.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.pool).isEqualTo("default");
              assertThat(job.restoredFrom).isEqualTo(slow.flink.jobs.get(old).savepoint);
            });
    assertThat(slow.store.rows.get(id).spec.definition().options())
        .doesNotContainKey("compute-pool");
    assertThat(slow.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldRollBackAMoveWhoseJobFailsOnTheNewPoolBeforeItRuns() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();
    moveTo(id, "blue");
    // One pass at a time until the job on blue is submitted; it then fails before running.
    world.flink.startsAs = JobState.CREATED;
    for (int i = 0; i < 40 && !"blue".equals(world.status(id).computePool()); i++) {
      world.pass(id);
    }
    String onBlue = world.status(id).jobId();
    assertThat(world.flink.jobs.get(onBlue).pool).isEqualTo("blue");
    world.flink.fail(onBlue);
    world.flink.startsAs = JobState.RUNNING;
    world.converge(id);

    assertThat(world.store.events).contains("MoveRolledBack");
    assertThat(world.store.rows.get(id).spec.definition().options())
        .doesNotContainKey("compute-pool");
    // Back on default from where the job on blue got: its newest checkpoint, so that the rows it
    // committed are not written again (the move's savepoint when it took none).
    String resumeAt =
        world.flink.latestRestorePath(onBlue).orElse(world.flink.jobs.get(old).savepoint);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.pool).isEqualTo("default");
              assertThat(job.restoredFrom).isEqualTo(resumeAt);
            });
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldRestartFromASavepointWhenTheFreshnessChanges() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();

    world.change(
        id,
        spec ->
            spec.withDefinition(
                spec.definition().withFreshness(new Clauses.Interval(10, Clauses.TimeUnit.SECOND))),
        true);
    world.converge(id);

    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> {
              assertThat(job.name).isEqualTo(world.flink.jobs.get(old).name);
              assertThat(job.restoredFrom).isEqualTo(world.flink.jobs.get(old).savepoint);
            });
    assertThat(world.status(id).checkpointIntervalMs()).isEqualTo(10_000);
  }

  @Test
  void shouldRemoveAResetTopicConfigAndReachTheGenerationWithoutANetChange() {
    UUID id =
        world.create(
            ORDERS.replace(" AS SELECT", " WITH ('kafka.retention.time' = '2 d') AS SELECT"));
    world.converge(id);
    assertThat(world.kafka.topics.get("high_value_orders").configs())
        .containsEntry("retention.ms", "172800000");

    world.change(id, spec -> spec.withDefinition(spec.definition().withOptions(Map.of())), true);
    world.converge(id);
    assertThat(world.kafka.topics.get("high_value_orders").configs())
        .doesNotContainKey("retention.ms");

    world.change(id, spec -> spec.withStopped(true), false);
    world.change(id, spec -> spec.withStopped(false), false);
    world.converge(id);
    assertThat(world.store.rows.get(id).observedGeneration)
        .isEqualTo(world.store.rows.get(id).generation);
  }

  @Test
  void shouldPreferTheOldJobsSavepointPositionsToItsCommittedOffsets() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();
    world.kafka.groups.put(JobSubmission.group(id), Map.of("orders", Map.of(0, 40L)));
    world.flink.savepointOffsets.put(
        "file:///savepoints/" + id + "/savepoint-" + old.substring(0, 6),
        Map.of("orders", Map.of(0, 45L)));
    world.flink.executed.clear();

    evolve(id);
    world.converge(id);

    assertThat(world.flink.executed)
        .anySatisfy(st -> assertThat(st).contains("'partition:0,offset:45'"))
        .noneSatisfy(st -> assertThat(st).contains("offset:40"));
  }

  @Test
  void shouldWaitForTheStateStorageRatherThanResumeFromCommittedOffsetsUnasked() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();
    world.kafka.groups.put(JobSubmission.group(id), Map.of("orders", Map.of(0, 40L)));
    world.flink.savepointsReadable = false; // the store went away after the plan
    world.flink.executed.clear();

    evolve(id);
    world.converge(id);

    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.flink.live()).isEmpty();
    assertThat(world.flink.executed).noneSatisfy(st -> assertThat(st).contains("offset:40"));
    assertThat(world.status(id).detail()).contains("cannot read the source offsets of savepoint");

    String savepoint = world.flink.jobs.get(old).savepoint;
    world.flink.savepointOffsets.put(savepoint, Map.of("orders", Map.of(0, 45L)));
    world.flink.savepointsReadable = true;
    world.converge(id);

    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.flink.executed)
        .anySatisfy(st -> assertThat(st).contains("'partition:0,offset:45'"))
        .noneSatisfy(st -> assertThat(st).contains("offset:40"));
  }

  @Test
  void shouldResumeFromCommittedOffsetsWhenTheTableAcceptsThemAndTheStorageCannotBeRead() {
    String accepting =
        ORDERS.replace(" AS SELECT", " WITH ('resume.offsets' = 'exact-or-committed') AS SELECT");
    UUID id = world.create(accepting);
    world.converge(id);
    world.kafka.groups.put(JobSubmission.group(id), Map.of("orders", Map.of(0, 40L)));
    world.flink.savepointsReadable = false;
    world.flink.executed.clear();

    world.change(
        id,
        spec -> spec.withDefinition(FakeWorld.definition(accepting.replace("> 50", "> 90"))),
        true);
    world.converge(id);

    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.flink.executed)
        .anySatisfy(st -> assertThat(st).contains("'partition:0,offset:40'"));
  }

  @Test
  void shouldStopTheJobThenCreateAnEmptyTopicAgainWithTheNewBucketCount() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String old = world.status(id).jobId();

    world.change(
        id,
        spec ->
            spec.withDefinition(
                spec.definition().withDistribution(new Clauses.Distribution(null, List.of(), 3))),
        true);
    world.converge(id);

    assertThat(world.kafka.topics.get("high_value_orders").partitions()).isEqualTo(3);
    assertThat(world.flink.jobs.get(old).state).isEqualTo(JobState.FINISHED);
    assertThat(world.flink.live())
        .singleElement()
        .satisfies(
            job -> assertThat(job.restoredFrom).isEqualTo(world.flink.jobs.get(old).savepoint));
  }

  @Test
  void shouldOrderTheQueryColumnsByANamesOnlyList() {
    world.flink.schema =
        List.of(
            new FlinkSql.Column("order_id", "STRING", true),
            new FlinkSql.Column("price", "DOUBLE", true));
    UUID id =
        world.create(
            "CREATE MATERIALIZED TABLE high_value_orders (price, order_id) AS SELECT order_id,"
                + " price FROM examples.marketplace.orders");

    world.converge(id);

    assertThat(world.status(id).schema())
        .extracting(FlinkSql.Column::name)
        .containsExactly("price", "order_id");
    assertThat(world.flink.executed)
        .anySatisfy(
            st ->
                assertThat(st)
                    .startsWith("INSERT INTO tributary_sink\nSELECT `price`, `order_id` FROM ("));
  }

  @Test
  void shouldChangeNothingOnceAnotherReplicaHasTakenTheRow() {
    UUID id = world.create(ORDERS);
    ReconcileStore.Claim claim = world.store.claim("a", 1, Duration.ofSeconds(1)).get(0);
    TableSnapshot snapshot = world.store.load(id).orElseThrow();
    world.store.stealClaim(id);

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                world.reconciler.reconcile(
                    snapshot, world.flink.overview(), claim.token(), Duration.ofSeconds(1)))
        .isInstanceOf(ReconcileStore.ClaimLostException.class);

    assertThat(world.flink.submissions).isZero();
    assertThat(world.kafka.topics).isEmpty();
    assertThat(world.phase(id)).isEqualTo(Phase.PENDING);
  }

  /** What a look-only pass may not change: status, events, jobs, topics, subjects. */
  private record World(
      Phase phase, TableStatus status, int events, int submissions, Map<String, ?> topics) {}

  private World world(UUID id) {
    return new World(
        world.phase(id),
        world.status(id),
        world.store.events.size(),
        world.flink.submissions,
        Map.copyOf(world.kafka.topics));
  }

  private boolean look(UUID id) {
    TableSnapshot snapshot = world.store.load(id).orElseThrow();
    Map<String, Optional<Topics.TopicState>> topic =
        Map.of(snapshot.topic(), Optional.ofNullable(world.kafka.topics.get(snapshot.topic())));
    Reconciler.Look look = world.reconciler.look(snapshot, world.flink.overview(), topic);
    assertThat(look.claim() || look.status() == null)
        .as("a table whose checkpoint did not move has nothing to write")
        .isTrue();
    return look.claim();
  }

  @Test
  void shouldSettleARunningTableAndLookAtItWithoutActingUntilTheWorldDiffers() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    TableSnapshot running = world.store.load(id).orElseThrow();
    assertThat(world.reconciler.reconcile(running, world.flink.overview()).settled())
        .as("a pass that finds nothing to do settles the table")
        .isTrue();
    World before = world(id);
    assertThat(look(id)).as("nothing differs").isFalse();
    assertThat(world(id)).isEqualTo(before);

    // Config drift behind our back: the look sees it but does not set the config back.
    Topics.TopicState topic = world.kafka.topics.get("high_value_orders");
    Map<String, String> drifted = new HashMap<>(topic.configs());
    drifted.put("cleanup.policy", "compact");
    world.kafka.topics.put(
        "high_value_orders",
        new Topics.TopicState(topic.name(), topic.partitions(), 1, drifted, false));
    World drift = world(id);
    assertThat(look(id)).as("config drift").isTrue();
    assertThat(world(id)).isEqualTo(drift);
    world.converge(id);
    assertThat(look(id)).as("the claimed pass set it back").isFalse();

    // The job failed behind our back: the look makes no restart of its own.
    world.flink.fail(world.status(id).jobId());
    World failed = world(id);
    assertThat(look(id)).as("a failed job").isTrue();
    assertThat(world(id)).isEqualTo(failed);

    // A pass that acts is not settled, even when it ends at rest.
    TableSnapshot snapshot = world.store.load(id).orElseThrow();
    assertThat(world.reconciler.reconcile(snapshot, world.flink.overview()).settled()).isFalse();
  }

  @Test
  void shouldCancelASecondLiveJobAndKeepTheOneTheStatusNames() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String kept = world.status(id).jobId();
    String pipeline = world.status(id).pipelineName();
    world.flink.jobs.put("stray", new FakeWorld.Flink.Job("stray", pipeline, null));

    world.converge(id);

    assertThat(world.flink.jobs.get("stray").state).isEqualTo(JobState.CANCELED);
    assertThat(world.flink.live()).singleElement().satisfies(j -> assertThat(j.id).isEqualTo(kept));
    assertThat(world.store.events).contains("DuplicateJob");
  }

  @Test
  void shouldKeepRetryingAndObeyingSuspendWhenAnOperationFails() {
    UUID id = world.create(ORDERS);
    world.flink.refuseSubmissions = "Could not acquire the minimum required resources";

    world.converge(id);
    TableStatus failing = world.status(id);

    assertThat(failing.invalidVersion()).as("the definition is not marked invalid").isZero();
    assertThat(failing.detail()).contains("Could not acquire");
    assertThat(failing.consecutiveFailures()).as("a full cluster is not a failure").isZero();
    assertThat(failing.condition(TableStatus.READY).message()).startsWith("Waiting for task slots");
    world.flink.refuseSubmissions = null;
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    world.change(id, spec -> spec.withStopped(true), false);
    world.converge(id);
    assertThat(world.phase(id)).isEqualTo(Phase.STOPPED);
  }

  @Test
  void shouldFindTheSavepointInTheJobsCheckpointsWhenTheTriggerIsForgotten() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String job = world.status(id).jobId();
    world.flink.forgetTriggers = true;

    world.change(id, spec -> spec.withStopped(true), false);
    world.converge(id);

    assertThat(world.phase(id)).isEqualTo(Phase.STOPPED);
    assertThat(world.status(id).savepointPath()).isEqualTo(world.flink.jobs.get(job).savepoint);
  }

  /**
   * The pass that submitted a job and saw every task run records RUNNING without asking the
   * JobManager for checkpoints first (a job that has just started has none of its own); the next
   * pass asks, and records the one there is.
   */
  @Test
  void shouldRecordRunningWithoutAskingForCheckpointsThenRecordTheFirstInTheNextPass() {
    UUID id = world.create(ORDERS);
    for (int i = 0; i < 10 && !world.store.events.contains("JobRunning"); i++) {
      world.pass(id);
    }
    assertThat(world.store.events).endsWith("JobSubmitted", "JobRunning");
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
    assertThat(world.calls("flinkJobs.latestCompleted")).isZero();
    assertThat(world.status(id).checkpoint()).isNull();

    world.pass(id);
    String job = world.status(id).jobId();
    assertThat(world.calls("flinkJobs.latestCompleted")).isOne();
    assertThat(world.status(id).checkpoint().path())
        .isEqualTo("file:///checkpoints/" + job + "/chk-7");
  }

  @Test
  void shouldRestoreTheRecordedCheckpointWhenTheJobManagerForgotTheJob() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String first = world.status(id).jobId();
    TableStatus.RestorePoint recorded = world.status(id).checkpoint();
    assertThat(recorded.path()).isEqualTo("file:///checkpoints/" + first + "/chk-7");

    world.flink.forgetJobs(); // a JobManager restarted without HA: its jobs and their history
    world.converge(id);

    assertThat(world.flink.live())
        .singleElement()
        .satisfies(job -> assertThat(job.restoredFrom).isEqualTo(recorded.path()));
    assertThat(world.status(id).restoredFrom()).isEqualTo("state of " + recorded.path());
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldRestoreTheNewestCheckpointInStorageWhenTheRecordedOneWasSubsumed() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String first = world.status(id).jobId();
    String directory = "file:///checkpoints/" + first;
    assertThat(world.status(id).checkpoint().path()).isEqualTo(directory + "/chk-7");
    // The job went on checkpointing; Flink kept only the newest and deleted chk-7.
    world.flink.storedCheckpoints.put(directory, List.of(directory + "/chk-12"));

    world.flink.forgetJobs();
    world.converge(id);

    assertThat(world.flink.live())
        .singleElement()
        .satisfies(job -> assertThat(job.restoredFrom).isEqualTo(directory + "/chk-12"));
    assertThat(world.phase(id)).isEqualTo(Phase.RUNNING);
  }

  @Test
  void shouldSayWhenAJobStartedWithoutState() {
    UUID id = world.create(ORDERS);
    world.converge(id);

    assertThat(world.status(id).restoredFrom()).startsWith("no state; sources start at {orders=");
  }

  @Test
  void shouldDeleteAnEarlierJobsCheckpointsOnceItsSuccessorHasOneAndAllOnDrop() {
    UUID id = world.create(ORDERS);
    world.converge(id);
    String first = world.status(id).jobId();
    world.flink.fail(first);
    world.converge(id);
    String second = world.status(id).jobId();
    assertThat(second).isNotEqualTo(first);

    assertThat(world.status(id).checkpoint().path()).contains(second);
    assertThat(world.flink.deletedCheckpoints).containsExactly("file:///checkpoints/" + first);

    world.drop(id);
    world.converge(id);

    assertThat(world.flink.deletedCheckpoints)
        .contains("file:///checkpoints/" + second, "file:///checkpoints/" + first);
  }
}
