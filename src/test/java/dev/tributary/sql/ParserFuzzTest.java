package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Generated and mutated statements: the parser answers every one with a statement or a {@link
 * SqlException} carrying a message and a position; never another exception, never a hang.
 */
class ParserFuzzTest {

  static final int CASES = 20_000;

  @Test
  void shouldAnswerEveryMutatedStatementWithAResultOrAPositionedError() throws IOException {
    List<String> inputs = Mutations.generate(seedStatements(), CASES, new Random(20261130));

    assertTimeoutPreemptively(
        Duration.ofSeconds(90),
        () -> {
          int accepted = 0;
          for (String input : inputs) {
            try {
              Parser.parseScript(input);
              accepted++;
            } catch (SqlException e) {
              assertThat(e.getMessage()).as(input).isNotBlank();
              assertThat(e.line()).as(input).isPositive();
              assertThat(e.column()).as(input).isPositive();
              assertThat(e.code().status()).isBetween(400, 499);
            }
          }
          // Mutations must exercise both outcomes, or the generator is broken.
          assertThat(accepted).isBetween(CASES / 100, CASES - CASES / 100);
        });
  }

  static List<String> seedStatements() throws IOException {
    List<String> statements = new ArrayList<>();
    try (var files = Files.list(Path.of("src/test/resources/sql/seeds"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".sql")).sorted().toList()) {
        Parser.parseScript(Files.readString(file)).forEach(p -> statements.add(p.text()));
      }
    }
    return statements;
  }
}
