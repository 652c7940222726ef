package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example statement of the seeds parses, and prints back to an equal statement. */
class SeedCorpusTest {

  static final Path SEEDS = Path.of("src/test/resources/sql/seeds");

  static Stream<Path> seedFiles() throws IOException {
    return Files.list(SEEDS).filter(p -> p.toString().endsWith(".sql")).sorted();
  }

  @ParameterizedTest
  @MethodSource("seedFiles")
  void shouldParseAndRoundTripEverySeedExample(Path file) throws IOException {
    List<Parser.Parsed> statements = Parser.parseScript(Files.readString(file));

    assertThat(statements).isNotEmpty();
    for (Parser.Parsed parsed : statements) {
      Statement statement = parsed.statement();
      String printed = Printer.print(statement);
      assertThat(Parser.parse(printed)).as(printed).isEqualTo(statement);
      if (statement instanceof Statement.CreateMaterializedTable create) {
        Statement effective =
            new Statement.CreateMaterializedTable(
                create.name(), false, false, Defaults.effective(create.definition()));
        assertThat(Parser.parse(Printer.print(effective))).isEqualTo(effective);
      }
    }
  }

  @Test
  void shouldFindEveryStatementOfTheCorpus() throws IOException {
    List<String> kinds = new ArrayList<>();
    for (Path file : seedFiles().toList()) {
      Parser.parseScript(Files.readString(file)).forEach(p -> kinds.add(p.statement().kind()));
    }

    assertThat(kinds).hasSize(37);
    assertThat(kinds)
        .contains(
            "CREATE_MATERIALIZED_TABLE",
            "ALTER_MATERIALIZED_TABLE_ADD_COLUMNS",
            "ALTER_MATERIALIZED_TABLE_SET_OPTIONS",
            "ALTER_MATERIALIZED_TABLE_MODIFY_WATERMARK",
            "ALTER_MATERIALIZED_TABLE_SUSPEND",
            "ALTER_MATERIALIZED_TABLE_RESUME",
            "ALTER_MATERIALIZED_TABLE_REFRESH",
            "ALTER_MATERIALIZED_TABLE_SET_FRESHNESS",
            "ALTER_MATERIALIZED_TABLE_EVOLVE",
            "DROP_MATERIALIZED_TABLE",
            "SHOW_MATERIALIZED_TABLES",
            "SHOW_MATERIALIZED_TABLE",
            "SELECT",
            "CREATE_PIPELINE_TABLE");
  }

  @Test
  void shouldRefuseTheElidedFragmentWithAClearMessage() throws IOException {
    String fragment =
        Files.readString(Path.of("src/test/resources/sql/fragments/003-11-distributed-range.sql"));

    assertThatThrownBy(() -> Parser.parseScript(fragment))
        .isInstanceOfSatisfying(
            SqlException.class,
            e -> {
              assertThat(e.line()).isEqualTo(3);
              assertThat(e.column()).isEqualTo(3);
              assertThat(e.getMessage())
                  .startsWith("Expected COMMENT, PARTITIONED BY")
                  .contains("found '.'");
            });
  }
}
