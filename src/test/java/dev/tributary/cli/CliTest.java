package dev.tributary.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's own parts: options, file order and the errors it gives before any call. */
class CliTest {

  @TempDir Path dir;

  private static String[] run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new Cli(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("TRIBUTARY_URL", "http://127.0.0.1:1"),
                false)
            .run(args);
    return new String[] {
      Integer.toString(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8)
    };
  }

  @Test
  void shouldReadAFoldersSqlFilesInFileNameOrderAndNothingElse() throws IOException {
    Files.writeString(dir.resolve("10_b.sql"), "x");
    Files.writeString(dir.resolve("02_a.sql"), "x");
    Files.writeString(dir.resolve("notes.txt"), "x");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/01.sql"), "x");
    Options o = Options.parse(new String[] {"plan", "-f", dir.toString()}, Map.of());
    assertThat(o.files().stream().map(p -> p.getFileName().toString()))
        .containsExactly("02_a.sql", "10_b.sql");
  }

  @Test
  void shouldTakeOptionsOverTheEnvironmentAndDefaults() {
    Options o =
        Options.parse(
            new String[] {"status", "--url=http://h:1", "-o", "json", "t"},
            Map.of("TRIBUTARY_URL", "http://env:2", "TRIBUTARY_DATABASE", "d"));
    Options waiting = Options.parse(new String[] {"apply", "-f", "x", "--wait", "90s"}, Map.of());
    assertThat(o.url).isEqualTo("http://h:1");
    assertThat(o.database).isEqualTo("d");
    assertThat(o.catalog).isEqualTo("default_catalog");
    assertThat(o.json).isTrue();
    assertThat(waiting.waitFor()).isEqualTo(Duration.ofSeconds(90));
    assertThat(waiting.stable()).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.args).containsExactly("t");
    assertThat(o.qualified("t")).isEqualTo("`default_catalog`.`d`.`t`");
    assertThat(o.tablePath("a b"))
        .isEqualTo("/v1/catalogs/default_catalog/databases/d/materialized-tables/a%20b");
  }

  @Test
  void shouldExitOneWithAMessageForBadInputBeforeCallingAnything() {
    assertThat(run("plan", "--bogus"))
        .satisfies(
            r -> {
              assertThat(r[0]).isEqualTo("1");
              assertThat(r[2]).contains("unknown option --bogus");
            });
    assertThat(run("apply", "-f", "x", "--wait", "soon")[2]).contains("--wait takes a duration");
    assertThat(run("plan", "-f", dir.resolve("missing").toString())[2])
        .contains("is not a file or folder");
    assertThat(run("plan", "-f", dir.toString())[2]).contains("no .sql file found");
    assertThat(run("lineage", "--format", "png")[2]).contains("--format is mermaid, dot or json");
    assertThat(run("suspend")[2]).contains("suspend takes one table name");
    assertThat(run("status"))
        .satisfies(
            r -> {
              assertThat(r[0]).isEqualTo("1");
              assertThat(r[2]).contains("Cannot reach http://127.0.0.1:1");
            });
  }

  @Test
  void shouldPrintItsUsage() {
    String[] help = run("help");
    assertThat(help[0]).isEqualTo("0");
    assertThat(help[1])
        .contains("Verbs:")
        .containsPattern("\\n  plan +What applying the .sql files would do")
        .contains("generate-completion");
    assertThat(run("--help")[1]).isEqualTo(help[1]);
    assertThat(Cli.startsService(new String[0])).isTrue();
    assertThat(Cli.startsService(new String[] {"serve", "--server.port=8081"})).isTrue();
    assertThat(Cli.startsService(new String[] {"apply"})).isFalse();
    assertThat(Cli.startsService(new String[] {"--server.port=8080"})).isFalse();
    assertThat(Cli.startsService(new String[] {"-h"})).isFalse();
    assertThat(Cli.startsService(new String[] {"stauts"})).isFalse();
  }

  @Test
  void shouldPrintEachVerbsOwnHelp() {
    String[] plan = run("plan", "--help");
    assertThat(plan[0]).isEqualTo("0");
    assertThat(plan[1])
        .startsWith("Usage: tributary plan")
        .contains("-f, --file=DIR|FILE")
        .contains("--fail-on-warning")
        .contains("--api-key=KEY")
        .doesNotContain("--plan-id");
    assertThat(run("help", "apply")[1]).startsWith("Usage: tributary apply").contains("--plan-id");
  }

  @Test
  void shouldPrintTheBuildsVersionAndCommit() {
    String[] version = run("--version");
    assertThat(version[0]).isEqualTo("0");
    // git.properties is written by the build (git-commit-id-maven-plugin) from this checkout.
    assertThat(version[1]).matches("tributary \\S+ \\(commit [0-9a-f]{7,}.*\\)\\R");
  }

  @Test
  void shouldSuggestTheVerbOrOptionMeantAndStartNothing() {
    String[] typo = run("stauts");
    assertThat(typo[0]).isEqualTo("1");
    assertThat(typo[2]).contains("unknown verb stauts").contains("status");
    String[] option = run("plan", "-f", "x", "--prnue");
    assertThat(option[0]).isEqualTo("1");
    assertThat(option[2]).contains("unknown option --prnue").contains("--prune");
    assertThat(option[2]).contains("Run 'tributary plan --help'");
  }

  @Test
  void shouldRefuseAServiceUrlWithoutSchemeOrHost() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new Cli(
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of("TRIBUTARY_URL", "127.0.0.1:18080"),
                false)
            .run("status");
    assertThat(code).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("'127.0.0.1:18080'")
        .contains("no http:// or https:// scheme")
        .doesNotContain("Exception");
    assertThat(run("status", "--url", "http://")[2]).contains("is 'http://', but it is not a URL");
    assertThat(run("status", "--url", "http:///v1")[2]).contains("it has no host");
  }

  @Test
  void shouldGenerateAShellCompletionScript() {
    String[] script = run("generate-completion");
    assertThat(script[0]).isEqualTo("0");
    assertThat(script[1]).contains("complete").contains("tributary").contains("lineage");
  }
}
