package dev.tributary.sql;

/**
 * Queries may not carry hints ({@code /*+ ... *}{@code /}): an OPTIONS hint changes a table's
 * connector options inside the query, past the connector policy that checked them. Statements are
 * checked as they are read ({@link Lexer}); this checks a query given on its own (a JSON
 * definition).
 */
public final class Hints {

  private Hints() {}

  /** 400 at the first hint of {@code query}, with its line and column in the query. */
  public static void refuse(String query) {
    if (query != null) {
      new Lexer(new Source(query)).tokenize();
    }
  }
}
