package dev.tributary.sql;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * A data type as Flink prints it: key words upper case, one space between words, none inside
 * brackets, a space after each comma ({@code decimal( 10,2 )} is {@code DECIMAL(10, 2)}, {@code
 * row<id int>} is {@code ROW<id INT>}). Field names of ROW types, quoted names and string literals
 * are kept as written. Meaning is unchanged: {@code INTEGER} stays {@code INTEGER}.
 */
final class TypeText {

  private TypeText() {}

  static String canonical(String type) {
    if (type == null) {
      return null;
    }
    List<String> tokens = tokens(type);
    StringBuilder out = new StringBuilder();
    // For each open bracket: whether it opened the fields of a ROW; then, whether the next word
    // is a field name (after the bracket or a comma at that level).
    Deque<Boolean> rows = new ArrayDeque<>();
    boolean fieldNameNext = false;
    String previous = null;
    for (String token : tokens) {
      char first = token.charAt(0);
      boolean word =
          Character.isLetterOrDigit(first) || first == '_' || first == '`' || first == '\'';
      if (previous != null) {
        boolean gap =
            word && (isWordToken(previous) || previous.equals(")") || previous.equals(">"))
                || previous.equals(",");
        if (gap) {
          out.append(' ');
        }
      }
      if (token.equals("(") || token.equals("<")) {
        boolean row = previous != null && previous.equalsIgnoreCase("ROW");
        rows.push(row);
        fieldNameNext = row;
        out.append(token);
      } else if (token.equals(")") || token.equals(">")) {
        if (!rows.isEmpty()) {
          rows.pop();
        }
        fieldNameNext = false;
        out.append(token);
      } else if (token.equals(",")) {
        fieldNameNext = !rows.isEmpty() && rows.peek();
        out.append(token);
      } else if (fieldNameNext && word) {
        fieldNameNext = false;
        out.append(token); // a field name, as written
      } else if (first == '`' || first == '\'') {
        out.append(token);
      } else {
        out.append(token.toUpperCase(Locale.ROOT));
      }
      previous = token;
    }
    return out.toString();
  }

  private static boolean isWordToken(String token) {
    char first = token.charAt(0);
    return Character.isLetterOrDigit(first) || first == '_' || first == '`' || first == '\'';
  }

  private static List<String> tokens(String text) {
    List<String> tokens = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '`' || c == '\'') {
        int end = i + 1;
        while (end < text.length()) {
          if (text.charAt(end) == c) {
            if (end + 1 < text.length() && text.charAt(end + 1) == c) {
              end += 2; // a doubled quote inside
              continue;
            }
            break;
          }
          end++;
        }
        tokens.add(text.substring(i, Math.min(end + 1, text.length())));
        i = end + 1;
      } else if (Character.isLetterOrDigit(c) || c == '_' || c == '$') {
        int end = i;
        while (end < text.length()
            && (Character.isLetterOrDigit(text.charAt(end))
                || text.charAt(end) == '_'
                || text.charAt(end) == '$')) {
          end++;
        }
        tokens.add(text.substring(i, end));
        i = end;
      } else {
        tokens.add(String.valueOf(c));
        i++;
      }
    }
    return tokens;
  }
}
