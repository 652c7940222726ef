package dev.tributary.sql;

/** The text being parsed, with line and column lookup for error messages. */
final class Source {

  private static final int SNIPPET_WIDTH = 100;

  private final String text;
  private final int[] lineStarts;

  Source(String text) {
    this.text = text;
    int lines = 1;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lines++;
      }
    }
    lineStarts = new int[lines];
    int line = 1;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        lineStarts[line++] = i + 1;
      }
    }
  }

  String text() {
    return text;
  }

  String slice(int start, int end) {
    return text.substring(start, end);
  }

  /** 1-based line and column of an offset (the end of the text counts as a position). */
  int[] lineAndColumn(int offset) {
    int clamped = Math.max(0, Math.min(offset, text.length()));
    int low = 0;
    int high = lineStarts.length - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (lineStarts[mid] <= clamped) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return new int[] {low + 1, clamped - lineStarts[low] + 1};
  }

  /** The line holding the offset, cut to a window around it, and a caret under the offset. */
  String snippet(int offset) {
    int[] lc = lineAndColumn(offset);
    int start = lineStarts[lc[0] - 1];
    int end = text.indexOf('\n', start);
    String line =
        text.substring(start, end < 0 ? text.length() : end).replace('\t', ' ').stripTrailing();
    int caret = lc[1] - 1;
    int from = Math.max(0, Math.min(caret - SNIPPET_WIDTH / 2, line.length() - SNIPPET_WIDTH));
    int to = Math.min(line.length(), from + SNIPPET_WIDTH);
    String window = line.substring(from, to);
    return window + "\n" + " ".repeat(Math.max(0, caret - from)) + "^";
  }
}
