package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.Phase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The phase table of reconcile/DESIGN.md against the code: every place that sets a phase is named
 * in the table's row for that phase (and every place it names sets it), and its "may be followed
 * by" column is {@link Phases#MAY_FOLLOW}, which the reconciler checks at every write.
 *
 * <p>A phase is "set" where {@code Phase.X} appears other than as an operand of {@code ==} or
 * {@code !=}: an argument of a save, an assignment, a branch of a conditional or a switch ({@link
 * Phases}, the table itself, aside).
 */
class PhaseTableTest {

  static final Path DESIGN = Path.of("src/main/java/dev/tributary/reconcile/DESIGN.md");
  static final Pattern ROW = Pattern.compile("^\\| ([A-Z]+) \\| (.*) \\| (.*) \\|$");
  static final Pattern USE = Pattern.compile("(?<![\\w.])Phase\\.([A-Z_]+)\\b");

  @Test
  void shouldNameEveryPlaceThatSetsAPhase() throws IOException {
    Map<Phase, Set<String>> documented = new TreeMap<>();
    for (String line : Files.readAllLines(DESIGN)) {
      Matcher row = ROW.matcher(line.strip());
      if (row.matches() && isPhase(row.group(1))) {
        Set<String> places = new TreeSet<>();
        Matcher name = Pattern.compile("`(\\w+)`").matcher(row.group(2));
        while (name.find()) {
          places.add(name.group(1));
        }
        documented.put(Phase.valueOf(row.group(1)), places);
      }
    }
    assertThat(documented.keySet()).as("a row per phase").containsExactlyInAnyOrder(Phase.values());
    assertThat(setters()).isEqualTo(documented);
  }

  @Test
  void shouldListWhatMayFollowEachPhaseAsTheReconcilerChecksIt() throws IOException {
    Map<Phase, Set<Phase>> documented = new TreeMap<>();
    for (String line : Files.readAllLines(DESIGN)) {
      Matcher row = ROW.matcher(line.strip());
      if (row.matches() && isPhase(row.group(1))) {
        String text = row.group(3);
        Set<Phase> listed = EnumSet.noneOf(Phase.class);
        Matcher phase = Pattern.compile("\\b([A-Z]{4,})\\b").matcher(text);
        while (phase.find()) {
          listed.add(Phase.valueOf(phase.group(1)));
        }
        documented.put(
            Phase.valueOf(row.group(1)),
            text.startsWith("any but") ? EnumSet.complementOf(EnumSet.copyOf(listed)) : listed);
      }
    }
    assertThat(documented).isEqualTo(new TreeMap<>(Phases.MAY_FOLLOW));
  }

  /** Per phase, the classes (file names) of the service that set it. */
  static Map<Phase, Set<String>> setters() throws IOException {
    Map<Phase, Set<String>> found = new TreeMap<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java/dev/tributary"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String source = Files.readString(file);
        boolean ours =
            source.contains("import " + Phase.class.getName() + ";")
                || source.startsWith("package " + Phase.class.getPackageName() + ";");
        String name = file.getFileName().toString();
        if (!ours || name.equals("Phase.java") || name.equals("Phases.java")) {
          continue;
        }
        String place = name.replace(".java", "");
        Matcher use = USE.matcher(source);
        while (use.find()) {
          String before = source.substring(Math.max(0, use.start() - 4), use.start()).strip();
          String after = source.substring(use.end(), Math.min(source.length(), use.end() + 4));
          boolean compared =
              before.endsWith("==")
                  || before.endsWith("!=")
                  || after.strip().startsWith("==")
                  || after.strip().startsWith("!=");
          if (!compared) {
            found.computeIfAbsent(Phase.valueOf(use.group(1)), p -> new TreeSet<>()).add(place);
          }
        }
      }
    }
    return found;
  }

  private static boolean isPhase(String name) {
    return Stream.of(Phase.values()).anyMatch(p -> p.name().equals(name));
  }
}
