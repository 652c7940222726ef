package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.Parser;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RemoteReadsTest {

  private static final Parser.Parsed FIRST = new Parser.Parsed(0, null, "SELECT 1");
  private static final Parser.Parsed SECOND = new Parser.Parsed(1, null, "SELECT 2");

  @Test
  void shouldStartAnsweringAQuestionWhileTheFirstRunGoesOn() throws Exception {
    CountDownLatch asked = new CountDownLatch(1);
    RemoteReads reads = RemoteReads.collecting();

    Object during =
        reads.ask(
            FIRST,
            "plan t",
            input -> {
              asked.countDown();
              return input + ": planned";
            });

    assertThat(during).as("the first run goes on as if the answer allowed it").isNull();
    assertThat(asked.await(10, TimeUnit.SECONDS))
        .as("answered before the run ends and asks for the answers")
        .isTrue();
    RemoteReads second = reads.answered();
    assertThat((Object) second.ask(FIRST, "plan t", input -> "asked again"))
        .isEqualTo("plan t: planned");
  }

  @Test
  void shouldAnswerOneQuestionAtATimeInTheOrderAsked() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    RemoteReads reads = RemoteReads.collecting();

    reads.ask(
        FIRST,
        "a",
        input -> {
          events.add("a started");
          await(release);
          events.add("a done");
          return 1;
        });
    reads.ask(
        SECOND,
        "b",
        input -> {
          events.add("b started");
          return 2;
        });
    Thread.sleep(200);
    assertThat(events).containsExactly("a started");
    release.countDown();

    RemoteReads second = reads.answered();
    assertThat(events).containsExactly("a started", "a done", "b started");
    assertThat((Object) second.ask(FIRST, "a", input -> 0)).isEqualTo(1);
    assertThat((Object) second.ask(SECOND, "b", input -> 0)).isEqualTo(2);
  }

  @Test
  void shouldStopAtTheFirstQuestionThatFailsAndNameItsStatement() {
    AtomicInteger laterAsked = new AtomicInteger();
    RemoteReads reads = RemoteReads.collecting();
    reads.ask(FIRST, "a", input -> 1);
    reads.ask(
        SECOND,
        "b",
        input -> {
          throw new ApiException(ErrorCode.INVALID_QUERY, "Flink refuses b");
        });
    reads.ask(
        new Parser.Parsed(2, null, "SELECT 3"),
        "c",
        input -> {
          laterAsked.incrementAndGet();
          return 3;
        });

    assertThatThrownBy(reads::answered)
        .isInstanceOf(ApiException.class)
        .hasMessage("Flink refuses b")
        .satisfies(
            e -> assertThat(((ApiException) e).properties()).containsEntry("statementIndex", 1));
    assertThat(laterAsked).as("the questions after a failed one are not asked").hasValue(0);
  }

  @Test
  void shouldShareOneReadAcrossTheQuestionsOfAScript() {
    AtomicInteger kafka = new AtomicInteger();
    RemoteReads reads = RemoteReads.collecting();
    for (Parser.Parsed statement : List.of(FIRST, SECOND)) {
      reads.ask(
          statement,
          statement.text(),
          input -> ReadOnce.read("offsets of orders", kafka::incrementAndGet));
    }

    RemoteReads second = reads.answered();

    assertThat(kafka).as("two plans, one read of the same topic").hasValue(1);
    assertThat((Object) second.ask(FIRST, "SELECT 1", input -> 0)).isEqualTo(1);
    assertThat((Object) second.ask(SECOND, "SELECT 2", input -> 0)).isEqualTo(1);
  }

  @Test
  void shouldAskNothingMoreOnceTheRunIsAbandoned() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger laterAsked = new AtomicInteger();
    RemoteReads reads = RemoteReads.collecting();
    reads.ask(
        FIRST,
        "a",
        input -> {
          await(release);
          return 1;
        });
    reads.ask(
        SECOND,
        "b",
        input -> {
          laterAsked.incrementAndGet();
          return 2;
        });

    reads.abandon();
    release.countDown();
    Thread.sleep(200);

    assertThat(laterAsked).as("a run given up (a name race) asks nothing more").hasValue(0);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
