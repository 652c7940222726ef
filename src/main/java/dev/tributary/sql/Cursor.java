package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/** A position in the token list, with the checks and verbatim captures the parsers share. */
final class Cursor {

  /** Words that cannot be a bare (unquoted) table or column name in a name position. */
  private static final Set<String> RESERVED =
      Set.of(
          "AS",
          "SELECT",
          "FROM",
          "WHERE",
          "WITH",
          "AND",
          "OR",
          "NOT",
          "NULL",
          "CREATE",
          "ALTER",
          "DROP",
          "TABLE",
          "MATERIALIZED",
          "IF",
          "EXISTS",
          "ON",
          "INSERT",
          "INTO",
          "BY",
          "FLOW");

  private final Source source;
  private final List<Token> tokens;
  private int index;

  Cursor(Source source, List<Token> tokens) {
    this.source = source;
    this.tokens = tokens;
  }

  Source source() {
    return source;
  }

  int mark() {
    return index;
  }

  List<Token> tokensSince(int mark) {
    return tokens.subList(mark, index);
  }

  Token peek() {
    return tokens.get(index);
  }

  Token peek(int ahead) {
    return tokens.get(Math.min(index + ahead, tokens.size() - 1));
  }

  Token next() {
    Token t = tokens.get(index);
    if (t.kind() != Token.Kind.EOF) {
      index++;
    }
    return t;
  }

  Token previous() {
    return tokens.get(Math.max(0, index - 1));
  }

  boolean atWord(String word) {
    return peek().isWord(word);
  }

  boolean atSymbol(String symbol) {
    return peek().isSymbol(symbol);
  }

  /** True at ';' or the end: where a statement may end. */
  boolean atEnd() {
    return peek().kind() == Token.Kind.EOF || atSymbol(";");
  }

  boolean acceptWord(String word) {
    if (atWord(word)) {
      index++;
      return true;
    }
    return false;
  }

  /** Accepts a sequence of words only if all of them are next. */
  boolean acceptWords(String... words) {
    for (int i = 0; i < words.length; i++) {
      if (!peek(i).isWord(words[i])) {
        return false;
      }
    }
    index += words.length;
    return true;
  }

  boolean acceptSymbol(String symbol) {
    if (atSymbol(symbol)) {
      index++;
      return true;
    }
    return false;
  }

  void expectWord(String word) {
    if (!acceptWord(word)) {
      throw expected(word);
    }
  }

  void expectWords(String... words) {
    for (String word : words) {
      expectWord(word);
    }
  }

  void expectSymbol(String symbol) {
    if (!acceptSymbol(symbol)) {
      throw expected("'" + symbol + "'");
    }
  }

  /** A name: a bare word that is not reserved, or a quoted identifier. */
  String identifier(String what) {
    Token t = peek();
    if (t.kind() == Token.Kind.QUOTED_IDENTIFIER) {
      if (t.value().isEmpty()) {
        throw error(ErrorCode.SQL_SYNTAX_ERROR, "A " + what + " cannot be empty", t, what);
      }
      next();
      return t.value();
    }
    if (t.kind() == Token.Kind.WORD && !RESERVED.contains(t.upper())) {
      next();
      return t.text();
    }
    throw expected(what);
  }

  /** {@code [catalog.][database.]name}. */
  ObjectName objectName(String what) {
    List<String> parts = new ArrayList<>();
    parts.add(identifier(what));
    while (atSymbol(".") && parts.size() < 3) {
      next();
      parts.add(identifier(what));
    }
    if (atSymbol(".")) {
      throw error(
          ErrorCode.SQL_SYNTAX_ERROR,
          "A name has at most three parts: catalog.database.name",
          peek(),
          null);
    }
    return switch (parts.size()) {
      case 1 -> new ObjectName(null, null, parts.get(0));
      case 2 -> new ObjectName(null, parts.get(0), parts.get(1));
      default -> new ObjectName(parts.get(0), parts.get(1), parts.get(2));
    };
  }

  /** ( name, name, ... ). */
  List<String> identifierList(String what) {
    expectSymbol("(");
    List<String> names = new ArrayList<>();
    do {
      names.add(identifier(what));
    } while (acceptSymbol(","));
    expectSymbol(")");
    return names;
  }

  String string(String what) {
    Token t = peek();
    if (t.kind() != Token.Kind.STRING) {
      throw expected(what + " (a quoted string)");
    }
    next();
    return t.value();
  }

  /**
   * A comment: a quoted string, or a double-quoted one as Databricks (and Spark) write strings;
   * elsewhere double quotes quote names, as in Flink.
   */
  String comment() {
    Token t = peek();
    if (t.kind() == Token.Kind.QUOTED_IDENTIFIER && t.text().startsWith("\"")) {
      next();
      return t.value();
    }
    return string("comment");
  }

  /** A positive whole number. */
  long number(String what) {
    Token t = peek();
    String digits = t.kind() == Token.Kind.STRING ? t.value().strip() : t.text();
    if ((t.kind() == Token.Kind.NUMBER || t.kind() == Token.Kind.STRING)
        && digits.matches("\\d{1,18}")) {
      next();
      return Long.parseLong(digits);
    }
    if (t.kind() == Token.Kind.NUMBER || t.kind() == Token.Kind.STRING || atSymbol("-")) {
      throw error(
          ErrorCode.SQL_SYNTAX_ERROR,
          what + " must be a positive whole number, not " + t.describe(),
          t,
          what);
    }
    throw expected(what);
  }

  /**
   * The source text from the current token up to (not including) the first token at nesting depth 0
   * that {@code stop} accepts, or the end of the statement. Parentheses and angle brackets (when
   * {@code angles}) must balance. Returns the verbatim text, trimmed.
   */
  String captureUntil(Predicate<Token> stop, boolean angles, String what) {
    int depth = 0;
    Token first = peek();
    Token last = null;
    ArrayDeque<Token> open = new ArrayDeque<>();
    while (true) {
      Token t = peek();
      if (t.kind() == Token.Kind.EOF || (depth == 0 && (t.isSymbol(";") || stop.test(t)))) {
        break;
      }
      if (t.isSymbol("(") || (angles && t.isSymbol("<"))) {
        depth++;
        open.push(t);
      } else if (t.isSymbol(")") || (angles && t.isSymbol(">"))) {
        if (depth == 0) {
          break;
        }
        depth--;
        open.pop();
      }
      last = next();
    }
    if (depth > 0) {
      Token unclosed = open.peek();
      throw error(
          ErrorCode.SQL_SYNTAX_ERROR,
          "Unbalanced " + unclosed.text() + " in the " + what + ": it is never closed",
          unclosed,
          unclosed.isSymbol("(") ? "')'" : "'>'");
    }
    if (last == null) {
      throw expected(what);
    }
    return source.slice(first.start(), last.end()).strip();
  }

  /** Like {@link #captureUntil} but joins the tokens with canonical spacing (for types). */
  String captureType(Predicate<Token> stop) {
    int from = index;
    captureUntil(stop, true, "data type");
    StringBuilder type = new StringBuilder();
    Token prev = null;
    for (int i = from; i < index; i++) {
      Token t = tokens.get(i);
      boolean tight =
          prev == null
              || t.isSymbol("(")
              || t.isSymbol(")")
              || t.isSymbol(",")
              || t.isSymbol("<")
              || t.isSymbol(">")
              || prev.isSymbol("(")
              || prev.isSymbol("<");
      if (!tight) {
        type.append(' ');
      } else if (prev != null && prev.isSymbol(",")) {
        type.append(' ');
      }
      type.append(t.text());
      prev = t;
    }
    return type.toString();
  }

  SqlException expected(String what) {
    Token t = peek();
    return error(
        ErrorCode.SQL_SYNTAX_ERROR, "Expected " + what + " but found " + t.describe(), t, what);
  }

  SqlException error(ErrorCode code, String message, Token at, String expected) {
    return SqlException.at(code, message, source, at.start(), expected);
  }
}
