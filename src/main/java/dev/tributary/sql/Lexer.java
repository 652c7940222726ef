package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into tokens. Skips white space, {@code --} and {@code /* *}{@code /} comments;
 * understands 'strings' (with '' escapes), `backtick` and "double-quoted" identifiers (with doubled
 * quotes as escapes), numbers and symbols. Linear in the input.
 */
final class Lexer {

  private static final String TWO_CHAR_SYMBOLS = "<=>=<>!=||::";

  private final Source source;
  private final String text;
  private int pos;
  private int depth;
  private int tokensInStatement;

  Lexer(Source source) {
    this.source = source;
    this.text = source.text();
  }

  List<Token> tokenize() {
    List<Token> tokens = new ArrayList<>();
    while (true) {
      skipSpaceAndComments();
      if (pos >= text.length()) {
        tokens.add(new Token(Token.Kind.EOF, "", "", text.length(), text.length()));
        return tokens;
      }
      Token token = next();
      tokens.add(token);
      nest(token);
    }
  }

  /** Refuses a name longer than a topic may be, and brackets nested deeper than any query needs. */
  private void nest(Token token) {
    if ((token.kind() == Token.Kind.WORD || token.kind() == Token.Kind.QUOTED_IDENTIFIER)
        && token.value().length() > Limits.MAX_IDENTIFIER) {
      throw SqlException.at(
          ErrorCode.STATEMENT_TOO_LARGE,
          "An identifier has at most "
              + Limits.MAX_IDENTIFIER
              + " characters (a topic name's limit); this one has "
              + token.value().length(),
          source,
          token.start(),
          null);
    }
    if (token.kind() == Token.Kind.SYMBOL && token.text().equals(";")) {
      tokensInStatement = 0;
    } else if (++tokensInStatement > Limits.MAX_TOKENS) {
      // Flink's parser and planner take more than linear time in the length of some expressions
      // (a long OR chain): a statement's size is bounded in tokens, not only in characters.
      throw SqlException.at(
          ErrorCode.STATEMENT_TOO_LARGE,
          "A statement has at most " + Limits.MAX_TOKENS + " tokens (words, literals, symbols)",
          source,
          token.start(),
          null);
    }
    if (token.kind() != Token.Kind.SYMBOL) {
      return;
    }
    if (token.text().equals("(") || token.text().equals("[")) {
      if (++depth > Limits.MAX_NESTING) {
        throw SqlException.at(
            ErrorCode.STATEMENT_TOO_LARGE,
            "Brackets are nested more than " + Limits.MAX_NESTING + " deep",
            source,
            token.start(),
            null);
      }
    } else if (token.text().equals(")") || token.text().equals("]")) {
      depth = Math.max(0, depth - 1);
    }
  }

  private void skipSpaceAndComments() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (c == '-' && peek(1) == '-') {
        while (pos < text.length() && text.charAt(pos) != '\n') {
          pos++;
        }
      } else if (c == '/' && peek(1) == '*') {
        if (peek(2) == '+') {
          // An OPTIONS hint would change a table's connector options past the connector policy.
          throw SqlException.at(
              ErrorCode.UNSUPPORTED_CLAUSE,
              "Query hints (/*+ ... */) are not supported: set options on the table instead",
              source,
              pos,
              null);
        }
        int close = text.indexOf("*/", pos + 2);
        if (close < 0) {
          throw error("Unterminated comment: /* has no closing */", pos, "*/");
        }
        pos = close + 2;
      } else {
        return;
      }
    }
  }

  private Token next() {
    int start = pos;
    char c = text.charAt(pos);
    if (c == '\'') {
      return quoted(Token.Kind.STRING, '\'', "string", start);
    }
    if (c == '`') {
      return quoted(Token.Kind.QUOTED_IDENTIFIER, '`', "identifier", start);
    }
    if (c == '"') {
      return quoted(Token.Kind.QUOTED_IDENTIFIER, '"', "identifier", start);
    }
    if (Character.isDigit(c) || (c == '.' && Character.isDigit(peek(1)))) {
      while (pos < text.length()
          && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '.')) {
        pos++;
      }
      return token(Token.Kind.NUMBER, start);
    }
    if (Character.isLetter(c) || c == '_' || c == '$') {
      while (pos < text.length()) {
        char d = text.charAt(pos);
        if (!(Character.isLetterOrDigit(d) || d == '_' || d == '$')) {
          break;
        }
        pos++;
      }
      return token(Token.Kind.WORD, start);
    }
    if (pos + 1 < text.length()) {
      String two = text.substring(pos, pos + 2);
      int at = TWO_CHAR_SYMBOLS.indexOf(two);
      if (at >= 0 && at % 2 == 0) {
        pos += 2;
        return token(Token.Kind.SYMBOL, start);
      }
    }
    // Any other character, including ones SQL has no use for, is a one-character symbol; the
    // parser reports it in context.
    pos += Character.charCount(text.codePointAt(pos));
    return token(Token.Kind.SYMBOL, start);
  }

  private Token quoted(Token.Kind kind, char quote, String what, int start) {
    StringBuilder value = new StringBuilder();
    pos++;
    while (true) {
      int close = text.indexOf(quote, pos);
      if (close < 0) {
        throw error(
            "Unterminated " + what + ": " + quote + " has no closing " + quote,
            start,
            String.valueOf(quote));
      }
      value.append(text, pos, close);
      if (close + 1 < text.length() && text.charAt(close + 1) == quote) {
        value.append(quote);
        pos = close + 2;
      } else {
        pos = close + 1;
        return new Token(kind, text.substring(start, pos), value.toString(), start, pos);
      }
    }
  }

  private Token token(Token.Kind kind, int start) {
    String t = text.substring(start, pos);
    return new Token(kind, t, t, start, pos);
  }

  private char peek(int ahead) {
    int i = pos + ahead;
    return i < text.length() ? text.charAt(i) : '\0';
  }

  private SqlException error(String message, int offset, String expected) {
    return SqlException.at(ErrorCode.SQL_SYNTAX_ERROR, message, source, offset, expected);
  }
}
