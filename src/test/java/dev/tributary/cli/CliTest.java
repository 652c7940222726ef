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
    Cli.Options o = Cli.Options.parse(new String[] {"plan", "-f", dir.toString()}, Map.of());
    assertThat(o.files().stream().map(p -> p.getFileName().toString()))
        .containsExactly("02_a.sql", "10_b.sql");
  }

  @Test
  void shouldTakeOptionsOverTheEnvironmentAndDefaults() {
    Cli.Options o =
        Cli.Options.parse(
            new String[] {"status", "--url=http://h:1", "--wait", "90s", "-o", "json", "t"},
            Map.of("TRIBUTARY_URL", "http://env:2", "TRIBUTARY_DATABASE", "d"));
    assertThat(o.url).isEqualTo("http://h:1");
    assertThat(o.database).isEqualTo("d");
    assertThat(o.catalog).isEqualTo("default_catalog");
    assertThat(o.json).isTrue();
    assertThat(o.waitFor()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.stable()).isEqualTo(Duration.ofSeconds(10));
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
    assertThat(help[1]).contains("plan    -f DIR|FILE").contains("--api-key KEY");
    assertThat(Cli.isVerb(new String[] {"apply"})).isTrue();
    assertThat(Cli.isVerb(new String[] {"--server.port=8080"})).isFalse();
    assertThat(Cli.isVerb(new String[0])).isFalse();
  }
}
