package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.List;

/**
 * The one query shape Tributary answers itself: {@code SELECT cols FROM table [WHERE p AND p ...]
 * [LIMIT n]}, with simple predicates. Anything richer is refused with a clear message.
 */
final class SelectParser {

  private static final String SHAPE =
      "Only simple queries are answered here: SELECT columns FROM table [WHERE column = 'value' AND ...] [LIMIT n]";

  private final Cursor in;

  SelectParser(Cursor in) {
    this.in = in;
  }

  Statement.Select select() {
    in.expectWord("SELECT");
    List<String> columns = new ArrayList<>();
    if (in.acceptSymbol("*")) {
      columns.add("*");
    } else {
      do {
        columns.add(in.identifier("column name or *"));
      } while (in.acceptSymbol(","));
    }
    expect("FROM");
    ObjectName from = in.objectName("table name");
    List<Statement.Predicate> where = new ArrayList<>();
    if (in.acceptWord("WHERE")) {
      do {
        where.add(predicate());
      } while (in.acceptWord("AND"));
    }
    Integer limit = null;
    if (in.acceptWord("LIMIT")) {
      long n = in.number("row limit");
      limit = (int) Math.min(n, Integer.MAX_VALUE);
    }
    if (!in.atEnd()) {
      throw unsupported("AND, LIMIT or the end of the statement");
    }
    return new Statement.Select(columns, from, where, limit);
  }

  private Statement.Predicate predicate() {
    String column = in.identifier("column name");
    Token op = in.peek();
    if (in.acceptWord("IS")) {
      boolean not = in.acceptWord("NOT");
      expect("NULL");
      return new Statement.Predicate(column, not ? "IS NOT NULL" : "IS NULL", List.of());
    }
    if (in.acceptWords("NOT", "LIKE")) {
      return new Statement.Predicate(column, "NOT LIKE", List.of(in.string("pattern")));
    }
    if (in.acceptWord("LIKE")) {
      return new Statement.Predicate(column, "LIKE", List.of(in.string("pattern")));
    }
    if (in.acceptWord("IN")) {
      in.expectSymbol("(");
      List<String> values = new ArrayList<>();
      do {
        values.add(literal());
      } while (in.acceptSymbol(","));
      in.expectSymbol(")");
      return new Statement.Predicate(column, "IN", values);
    }
    for (String symbol : List.of("=", "<>", "!=", "<=", ">=", "<", ">")) {
      if (in.acceptSymbol(symbol)) {
        return new Statement.Predicate(
            column, symbol.equals("!=") ? "<>" : symbol, List.of(literal()));
      }
    }
    throw in.error(
        ErrorCode.SQL_SYNTAX_ERROR,
        "Expected a comparison (=, <>, <, >, LIKE, IN, IS NULL) but found " + op.describe(),
        op,
        "a comparison");
  }

  private String literal() {
    Token t = in.next();
    if (t.kind() == Token.Kind.STRING) {
      return t.value();
    }
    if (t.kind() == Token.Kind.NUMBER || t.isWord("TRUE") || t.isWord("FALSE")) {
      return t.text();
    }
    throw in.error(
        ErrorCode.SQL_SYNTAX_ERROR,
        "Expected a literal value but found " + t.describe(),
        t,
        "a literal");
  }

  private void expect(String word) {
    if (!in.acceptWord(word)) {
      throw unsupported(word);
    }
  }

  private SqlException unsupported(String expected) {
    Token t = in.peek();
    return in.error(
        ErrorCode.UNSUPPORTED_STATEMENT,
        SHAPE + "; expected " + expected + " but found " + t.describe(),
        t,
        expected);
  }
}
