package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README.md and docs/ as a reader follows them: every relative link reaches a file, every anchor a
 * heading of its page (GitHub's slugs), and no page shows a path of the machine it was written on.
 * Links inside fenced code are text, not links.
 */
class DocsTest {

  static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");
  static final Pattern MACHINE_PATH = Pattern.compile("(^|[^\\w.])/(work|root|home|Users)/");

  static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    pages.add(Path.of("src/main/java/dev/tributary/reconcile/DESIGN.md"));
    return pages;
  }

  @Test
  void shouldResolveEveryRelativeLinkAndAnchor() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      for (String target : links(page)) {
        if (target.matches("^[a-z]+:.*")) {
          continue; // http:, https:, mailto:
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(page + ": " + target + " (no file " + resolved + ")");
        } else if (anchor != null
            && resolved.toString().endsWith(".md")
            && !anchors(resolved).contains(anchor)) {
          broken.add(page + ": " + target + " (no heading #" + anchor + " in " + resolved + ")");
        }
      }
    }
    assertThat(checked).as("links checked").isGreaterThan(10);
    assertThat(broken).isEmpty();
  }

  @Test
  void shouldShowNoPathOfTheMachineItWasWrittenOn() throws IOException {
    List<String> found = new ArrayList<>();
    for (Path page : pages()) {
      List<String> lines = Files.readAllLines(page);
      for (int i = 0; i < lines.size(); i++) {
        if (MACHINE_PATH.matcher(lines.get(i)).find()) {
          found.add(page + ":" + (i + 1) + ": " + lines.get(i).strip());
        }
      }
    }
    assertThat(found).isEmpty();
  }

  @Test
  void shouldKeepTheReadmeToWhatANewcomerNeedsFirst() throws IOException {
    assertThat(Files.readAllLines(Path.of("README.md"))).hasSizeLessThan(300);
  }

  @Test
  void shouldSlugHeadingsAsGitHubDoes() {
    assertThat(slug("FULL tables: scheduled refreshes"))
        .isEqualTo("full-tables-scheduled-refreshes");
    assertThat(slug("The command line: plan and apply"))
        .isEqualTo("the-command-line-plan-and-apply");
    assertThat(slug("Clauses and options, and what each does"))
        .isEqualTo("clauses-and-options-and-what-each-does");
    assertThat(slug("`tributary` and `CREATE FLOW`")).isEqualTo("tributary-and-create-flow");
  }

  /** The link targets of a page, outside fenced code. */
  static List<String> links(Path page) throws IOException {
    List<String> targets = new ArrayList<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced) {
        Matcher link = LINK.matcher(line);
        while (link.find()) {
          targets.add(link.group(1));
        }
      }
    }
    return targets;
  }

  static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(page)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      } else if (!fenced) {
        Matcher heading = HEADING.matcher(line);
        if (heading.matches()) {
          anchors.add(slug(heading.group(1)));
        }
      }
    }
    return anchors;
  }

  /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N}\\- _]", "")
        .replace(' ', '-');
  }
}
