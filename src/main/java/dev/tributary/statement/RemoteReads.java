package dev.tributary.statement;

import dev.tributary.sql.Parser;
import dev.tributary.system.ApiException;
import dev.tributary.system.Beside;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a script asks of Flink, Kafka and the registry (plans, rows of a topic), kept out of every
 * database transaction. A script first runs against the store collecting its questions, each with
 * every input it read from the store; the questions are then answered with no transaction open;
 * then the script runs again in its transaction and takes the answers in order. If a question of
 * the second run differs from the first (another request changed what it read), the answers do not
 * fit and the run is {@link Stale}.
 *
 * <p>A question is answered from the moment it is asked, beside the first run: its input is a value
 * complete in itself (that is what lets the second run compare it), so the answer cannot depend on
 * what the run does after. The questions are answered one after another, in the order asked, on one
 * thread at a time and in one {@link ReadOnce} scope, as they were after the run: a script's plans
 * still share their reads, a failing question still stops the ones after it, and a script of
 * hundreds of statements asks Flink one question at a time, not hundreds at once. A CREATE's
 * question (Flink's planner, the topic, the pool's slots) is then answered while the run stores the
 * row, its version, its event and its audit record, and is rolled back. Written by hand: the
 * questions' order, the shared scope and the first failure's position are what this class is.
 */
final class RemoteReads {

  /** A question, the statement that asked it, and how to answer it. */
  private record Question(Parser.Parsed statement, Object input, Function<Object, Object> answer) {}

  /** The store changed between the runs; run the script again. */
  static final class Stale extends RuntimeException {
    Stale() {
      super("The store changed while the script's remote reads were answered", null, false, false);
    }
  }

  private final List<Question> asked = new ArrayList<>();
  private final List<Question> before;
  private final List<Object> answers;

  /** Collecting: each question's answer, under way since it was asked; else null. */
  private final List<CompletableFuture<Object>> ahead;

  /** Collecting: the answer asked last, which the next one follows. */
  private CompletableFuture<Object> last = CompletableFuture.completedFuture(null);

  /** Collecting: the scope the answers share. */
  private final ReadOnce.Scope scope;

  /** The run was given up (it will run again): the answers not started yet are not asked. */
  private volatile boolean abandoned;

  private RemoteReads(
      List<Question> before, List<Object> answers, List<CompletableFuture<Object>> ahead) {
    this.before = before;
    this.answers = answers;
    this.ahead = ahead;
    this.scope = ahead == null ? null : ReadOnce.scope();
  }

  /**
   * A first run: questions are collected and answered with {@code null}, and their real answers
   * worked out beside it.
   */
  static RemoteReads collecting() {
    return new RemoteReads(null, null, new ArrayList<>());
  }

  boolean asked() {
    return !asked.isEmpty();
  }

  /**
   * The answer to {@code input} (a value: equal inputs are the same question). Collecting, it is
   * null and the caller goes on as if the answer allowed it.
   */
  @SuppressWarnings("unchecked")
  <I, T> T ask(Parser.Parsed statement, I input, Function<I, T> answer) {
    int n = asked.size();
    Question question = new Question(statement, input, (Function<Object, Object>) answer);
    asked.add(question);
    if (answers == null) {
      answerBeside(question);
      return null;
    }
    if (n >= before.size() || !before.get(n).input().equals(input)) {
      throw new Stale();
    }
    return (T) answers.get(n);
  }

  /**
   * Starts answering {@code question} once the one asked before it is answered; if that one failed,
   * so does this one, with the same error, and it asks nothing. It runs as this thread's request
   * ({@link Beside#carried}).
   */
  private void answerBeside(Question question) {
    Supplier<Object> answer =
        Beside.carried(
            () ->
                abandoned
                    ? null
                    : ReadOnce.within(scope, () -> question.answer().apply(question.input())));
    last = last.thenCompose(previous -> Beside.ask(answer));
    ahead.add(last);
  }

  /**
   * Waits for the answer to every question collected so far, worked out outside any transaction,
   * and returns the reads for a second run. The first question that failed raises its error, with
   * its statement's index: the script stops at the first statement that cannot be carried out, as
   * if it had run alone.
   */
  RemoteReads answered() {
    List<Object> results = new ArrayList<>();
    for (int i = 0; i < asked.size(); i++) {
      try {
        results.add(Beside.await(ahead.get(i)));
      } catch (ApiException e) {
        throw StatementService.withPosition(e, asked.get(i).statement());
      }
    }
    return new RemoteReads(List.copyOf(asked), results, null);
  }

  /** The first run is given up without its answers: those not started are not asked. */
  void abandon() {
    abandoned = true;
  }

  /** The 409 when the store kept changing under the script. */
  static ApiException conflict() {
    return new ApiException(
        ErrorCode.CONFLICT,
        "The tables this script reads kept changing while it was planned; submit it again");
  }
}
