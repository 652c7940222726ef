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
    ExecutorService passes = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<FlinkJobs.JobSummary>>> answers = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        answers.add(
            passes.submit(
                () -> {
                  ask.await();
                  return starting.overview(FlinkJobs.DEFAULT_POOL);
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
        .as("ten times the answer's time")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void shouldLookAgainOnceTheLastLookIsAnIntervalOld() throws Exception {
    StartingJobs starting = new StartingJobs(world.countedJobs);
    starting.overview(FlinkJobs.DEFAULT_POOL);
    starting.overview(FlinkJobs.DEFAULT_POOL);
    assertThat(world.calls("flinkJobs.overview")).as("within the interval").isOne();

    Thread.sleep(starting.interval(FlinkJobs.DEFAULT_POOL).toMillis() + 5);
    starting.overview(FlinkJobs.DEFAULT_POOL);
    assertThat(world.calls("flinkJobs.overview")).isEqualTo(2);
    assertThat(starting.interval(FlinkJobs.DEFAULT_POOL))
        .isGreaterThanOrEqualTo(JobSteps.SUBMITTED_POLL);
  }

  @Test
  void shouldAskAgainAfterAFailedLook() {
    StartingJobs starting = new StartingJobs(world.countedJobs);
    world.flink.down = true;
    assertThatThrownBy(() -> starting.overview(FlinkJobs.DEFAULT_POOL))
        .isInstanceOf(RemoteSystemException.class);
    world.flink.down = false;
    assertThat(starting.overview(FlinkJobs.DEFAULT_POOL)).isEmpty();
    assertThat(world.calls("flinkJobs.overview")).isEqualTo(2);
  }
}
