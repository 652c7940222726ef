package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.Set;

/**
 * A statement that cannot be accepted, with where it went wrong: the statement's index in its
 * script, line and column (1-based, in the whole script), what was expected and a one-line snippet
 * with a caret under the spot.
 */
public final class SqlException extends RuntimeException {

  private final ErrorCode code;
  private final int statementIndex;
  private final int line;
  private final int column;
  private final String expected;
  private final String snippet;

  SqlException(
      ErrorCode code,
      String message,
      int statementIndex,
      int line,
      int column,
      String expected,
      String snippet) {
    super(message);
    this.code = code;
    this.statementIndex = statementIndex;
    this.line = line;
    this.column = column;
    this.expected = expected;
    this.snippet = snippet;
  }

  /** An error at a position of the source. */
  static SqlException at(
      ErrorCode code, String message, Source source, int offset, String expected) {
    int[] lc = source.lineAndColumn(offset);
    return new SqlException(code, message, -1, lc[0], lc[1], expected, source.snippet(offset));
  }

  /** The same error with each of these values shown as {@value Secrets#MASK}. */
  SqlException masking(Set<String> secrets) {
    if (secrets.isEmpty()) {
      return this;
    }
    return new SqlException(
        code,
        Secrets.mask(getMessage(), secrets),
        statementIndex,
        line,
        column,
        expected,
        Secrets.mask(snippet, secrets));
  }

  /** The same error, placed in statement {@code index} of a script. */
  SqlException inStatement(int index) {
    return new SqlException(code, getMessage(), index, line, column, expected, snippet);
  }

  public ErrorCode code() {
    return code;
  }

  /** 0-based index of the statement in its script, -1 when unknown. */
  public int statementIndex() {
    return statementIndex;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }

  /** What the parser would have accepted here, or null. */
  public String expected() {
    return expected;
  }

  /** The offending line and a caret line under the column. */
  public String snippet() {
    return snippet;
  }
}
