package dev.tributary.sql;

/**
 * What one statement may hold. Each limit bounds the work a request can cause, and a refusal names
 * the limit and the value found (400 STATEMENT_TOO_LARGE, with line and column).
 */
public final class Limits {

  /** A name: a table's name becomes part of its topic's, and a topic name has at most 249. */
  public static final int MAX_IDENTIFIER = 249;

  /** Options in one WITH clause. */
  public static final int MAX_OPTIONS = 100;

  /** An option key. */
  public static final int MAX_OPTION_KEY = 200;

  /** An option value: room for a JAAS configuration or a PEM certificate chain. */
  public static final int MAX_OPTION_VALUE = 32 * 1024;

  /** Brackets within brackets: far beyond any real query, far below a stack overflow. */
  public static final int MAX_NESTING = 100;

  /**
   * Tokens in one statement: a query's expressions are planned by Flink in more than linear time.
   */
  public static final int MAX_TOKENS = 20_000;

  private Limits() {}
}
