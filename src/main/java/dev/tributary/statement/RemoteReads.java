package dev.tributary.statement;

import dev.tributary.sql.Parser;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What a script asks of Flink, Kafka and the registry (plans, rows of a topic), kept out of every
 * database transaction. A script first runs against the store collecting its questions, each with
 * every input it read from the store; the questions are then answered with no transaction open;
 * then the script runs again in its transaction and takes the answers in order. If a question of
 * the second run differs from the first (another request changed what it read), the answers do not
 * fit and the run is {@link Stale}.
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

  private RemoteReads(List<Question> before, List<Object> answers) {
    this.before = before;
    this.answers = answers;
  }

  /** A first run: questions are collected and answered with {@code null}. */
  static RemoteReads collecting() {
    return new RemoteReads(null, null);
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
    asked.add(new Question(statement, input, (Function<Object, Object>) answer));
    if (answers == null) {
      return null;
    }
    if (n >= before.size() || !before.get(n).input().equals(input)) {
      throw new Stale();
    }
    return (T) answers.get(n);
  }

  /**
   * Answers every question collected so far, outside any transaction, and returns the reads for a
   * second run. A question that fails raises its error at once, with its statement's index: the
   * script stops at the first statement that cannot be carried out, as if it had run alone.
   */
  RemoteReads answered() {
    // Plans of one script that ask Kafka or the storage the same thing share one read.
    return ReadOnce.within(
        () -> {
          List<Object> results = new ArrayList<>();
          for (Question q : asked) {
            try {
              results.add(q.answer().apply(q.input()));
            } catch (ApiException e) {
              throw StatementService.withPosition(e, q.statement());
            }
          }
          return new RemoteReads(List.copyOf(asked), results);
        });
  }

  /** The 409 when the store kept changing under the script. */
  static ApiException conflict() {
    return new ApiException(
        ErrorCode.CONFLICT,
        "The tables this script reads kept changing while it was planned; submit it again");
  }
}
