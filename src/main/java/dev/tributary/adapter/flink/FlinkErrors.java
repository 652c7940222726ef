package dev.tributary.adapter.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what went wrong out of the stack traces that Flink's REST APIs return as error text. A user
 * must see "Column 'nope' not found in any table", not a trace.
 */
final class FlinkErrors {

  /**
   * A throwable's class heading a line: a qualified name (package, then a capitalised class, nested
   * ones after {@code $}), followed by a colon or the end of the line. Any class, not only those
   * named *Exception: a job's own failure type (an expectation's violation) is a class too.
   */
  private static final Pattern EXCEPTION_PREFIX =
      Pattern.compile("^(?:[a-z_$][\\w$]*\\.)+[A-Z][\\w$]*(?::\\s*|$)");

  private static final Pattern POSITION = Pattern.compile("line (\\d+), column (\\d+)");
  private static final String CAUSED_BY = "Caused by: ";
  private static final String SERVER_SIDE = "<Exception on server side:";

  private FlinkErrors() {}

  /** The message chain, outermost first, with class names removed, one line per exception. */
  static List<String> causes(String trace) {
    List<String> causes = new ArrayList<>();
    boolean expectHead = true;
    for (String raw : trace.split("\\R")) {
      String line = raw.strip();
      if (line.startsWith(CAUSED_BY)) {
        add(causes, line.substring(CAUSED_BY.length()));
        // A REST client error carries the server's own trace in its message: read that too.
        expectHead = line.endsWith(SERVER_SIDE);
      } else if (expectHead && EXCEPTION_PREFIX.matcher(line).find()) {
        // The outermost exception's first line; what precedes it is the server's preamble.
        add(causes, line);
        expectHead = line.endsWith(SERVER_SIDE);
      }
    }
    return causes;
  }

  /** The most specific message: the root cause's, or the nearest one above it with any text. */
  static String rootMessage(String trace) {
    List<String> causes = causes(trace);
    for (int i = causes.size() - 1; i >= 0; i--) {
      if (!causes.get(i).isBlank()) {
        return causes.get(i);
      }
    }
    // Throwables without messages say nothing a user can act on; their class names say less.
    String firstLine = causes.isEmpty() ? trace.strip().lines().findFirst().orElse("") : "";
    return firstLine.isBlank() ? "Flink gave no error message" : firstLine;
  }

  /** Line and column that Flink reported, searched from the root cause outwards. */
  static Optional<int[]> position(List<String> causes) {
    for (int i = causes.size() - 1; i >= 0; i--) {
      Matcher m = POSITION.matcher(causes.get(i));
      if (m.find()) {
        return Optional.of(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))});
      }
    }
    return Optional.empty();
  }

  private static void add(List<String> causes, String line) {
    causes.add(EXCEPTION_PREFIX.matcher(line).replaceFirst("").strip());
  }
}
