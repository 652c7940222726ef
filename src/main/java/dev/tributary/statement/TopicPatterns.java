package dev.tributary.statement;

import java.util.Optional;

/**
 * What a Kafka connector's {@code topic-pattern} (a Java regular expression) can match, read
 * conservatively: the literal text every match must start with. Written by hand because no library
 * answers "the prefix every match of this regex shares"; the rule is kept simple so that it is
 * sound: a pattern with alternation ({@code |}) anywhere has no head, and the head stops at the
 * first character that is not plainly literal.
 */
final class TopicPatterns {

  private TopicPatterns() {}

  /** The literal start of every match, and whether it is the whole pattern. */
  record Head(String text, boolean whole) {}

  static Optional<Head> head(String pattern) {
    if (pattern.indexOf('|') >= 0) {
      return Optional.empty();
    }
    StringBuilder head = new StringBuilder();
    int i = pattern.startsWith("^") ? 1 : 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i);
      if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
        head.append(c);
        i++;
      } else if (c == '\\'
          && i + 1 < pattern.length()
          && !Character.isLetterOrDigit(pattern.charAt(i + 1))) {
        head.append(pattern.charAt(i + 1));
        i += 2;
      } else {
        break;
      }
    }
    // A quantifier right after the head applies to its last character: that one is not sure.
    if (i < pattern.length() && "*?{".indexOf(pattern.charAt(i)) >= 0 && head.length() > 0) {
      head.setLength(head.length() - 1);
    }
    boolean whole = i == pattern.length() || (i == pattern.length() - 1 && pattern.endsWith("$"));
    return head.length() == 0 ? Optional.empty() : Optional.of(new Head(head.toString(), whole));
  }
}
