package dev.tributary.sql;

import java.util.Locale;

/** A lexical token: its kind, its text as written and its place in the source. */
record Token(Kind kind, String text, String value, int start, int end) {

  /** Token kinds. Quoted identifiers and strings carry their unescaped {@code value}. */
  enum Kind {
    WORD,
    QUOTED_IDENTIFIER,
    STRING,
    NUMBER,
    SYMBOL,
    EOF
  }

  boolean isWord(String keyword) {
    return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
  }

  boolean isSymbol(String symbol) {
    return kind == Kind.SYMBOL && text.equals(symbol);
  }

  boolean isIdentifier() {
    return kind == Kind.WORD || kind == Kind.QUOTED_IDENTIFIER;
  }

  String upper() {
    return text.toUpperCase(Locale.ROOT);
  }

  /** How the token reads in an error message. */
  String describe() {
    return switch (kind) {
      case EOF -> "end of input";
      case STRING -> "string '" + abbreviate(value) + "'";
      default -> "'" + abbreviate(text) + "'";
    };
  }

  private static String abbreviate(String s) {
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }
}
