package dev.tributary.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A line per object: on a terminal the block of lines is redrawn in place as they change; elsewhere
 * (CI logs) a line is printed each time an object's line changes.
 */
final class Progress {

  private final PrintStream out;
  private final boolean terminal;
  private final Map<String, String> lines = new LinkedHashMap<>();
  private int drawn;

  Progress(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  void show(String key, String line) {
    String before = lines.put(key, line);
    if (line.equals(before)) {
      return;
    }
    if (!terminal) {
      out.println(line);
      out.flush();
      return;
    }
    StringBuilder s = new StringBuilder();
    if (drawn > 0) {
      s.append("\033[").append(drawn).append('A');
    }
    for (String l : lines.values()) {
      s.append("\r\033[2K").append(l).append('\n');
    }
    drawn = lines.size();
    out.print(s);
    out.flush();
  }

  void end() {
    out.flush();
  }
}
