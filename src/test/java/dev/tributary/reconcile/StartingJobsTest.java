package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.RemoteSystemException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Passes watching their jobs start share the pool's looks. */
class StartingJobsTest {

  FakeWorld world = new FakeWorld();

  @Test
  void shouldAnswerPassesThatAskAtOnceWithOneLook() throws Exception {
    CountDownLatch ask = new CountDownLatch(1);
    AtomicInteger looks = new AtomicInteger();
    // A JobManager that takes 200 ms to answer: every pass asks while the first look is under way.
    FlinkJobs slow =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) -> {
                  if (!method.getName().equals("overview")) {
                    throw new UnsupportedOperationException(method.getName());
                  }
                  looks.incrementAndGet();
                  Thread.sleep(200);
                  return List.of();
                });
    StartingJobs starting = new StartingJobs(slow);
    long submitted = System.nanoTime();
    ExecutorService passes = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<FlinkJobs.JobSummary>>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(
            passes.submit(
                () -> {
                  ask.await();
                  return starting.overview(FlinkJobs.DEFAULT_POOL, submitted);
                }));
      }
      ask.countDown();
      for (Future<List<FlinkJobs.JobSummary>> answer : answers) {
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEmpty();
      }
    } finally {
      passes.shutdownNow();
    }
    assertThat(looks).hasValue(1);
    assertThat(starting.interval(FlinkJobs.DEFAULT_POOL))
        .as("four times the answer's time, from one look's start to the next's")
        .isGreaterThanOrEqualTo(Duration.ofMillis(800));
  }

  @Test
  void shouldTakeANewLookForAPassThatAsksForOneStartedAfterTheLast() {
    StartingJobs starting = new StartingJobs(world.countedJobs);
    long submitted = System.nanoTime();
    starting.overview(FlinkJobs.DEFAULT_POOL, submitted);
    starting.overview(FlinkJobs.DEFAULT_POOL, submitted);
    assertThat(world.calls("flinkJobs.overview")).as("a look after the submission").isOne();

    starting.overview(FlinkJobs.DEFAULT_POOL, System.nanoTime());
    assertThat(world.calls("flinkJobs.overview")).isEqualTo(2);
    assertThat(starting.interval(FlinkJobs.DEFAULT_POOL))
        .isGreaterThanOrEqualTo(JobSteps.SUBMITTED_POLL);
  }

  @Test
  void shouldLetOnlyAFewPassesWatchAtOnce() {
    StartingJobs starting = new StartingJobs(world.countedJobs);
    for (int i = 0; i < StartingJobs.WATCHERS; i++) {
      assertThat(starting.watch()).isTrue();
    }
    assertThat(starting.watch()).as("a backlog's pass").isFalse();
    starting.done();
    assertThat(starting.watch()).isTrue();
  }

  @Test
  void shouldAskAgainAfterAFailedLook() {
    StartingJobs starting = new StartingJobs(world.countedJobs);
    world.flink.down = true;
    long submitted = System.nanoTime();
    assertThatThrownBy(() -> starting.overview(FlinkJobs.DEFAULT_POOL, submitted))
        .isInstanceOf(RemoteSystemException.class);
    world.flink.down = false;
    assertThat(starting.overview(FlinkJobs.DEFAULT_POOL, submitted)).isEmpty();
    assertThat(world.calls("flinkJobs.overview")).isEqualTo(2);
  }
}
