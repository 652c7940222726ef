package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.sql.Mutations;
import dev.tributary.sql.Parser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * Generated and mutated statements over HTTP: never a 5xx, every refusal a problem with a message.
 */
@TributaryIT
// Statement semantics only: no reconciler, so nothing is provisioned from these definitions.
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class StatementFuzzIT {

  @LocalServerPort int port;

  @Test
  void shouldNeverAnswer5xxForAnyStatement() throws IOException {
    Api api = new Api(port);
    // 5,500 in verify (about 35 s); -Dfuzz.statements=11000 or more for a longer run.
    List<String> inputs =
        Mutations.generate(seeds(), Integer.getInteger("fuzz.statements", 5_500), new Random(7));
    inputs.set(6, "x".repeat(1_100_000));
    // Inputs that once cost the square of their length, or more (issue: tenancy).
    inputs.set(16, "ALTER MATERIALIZED TABLE rs_" + "a".repeat(100_000) + " SET ('k' = 'v')");
    inputs.set(26, "SHOW CREATE MATERIALIZED TABLE " + "b".repeat(100_000));
    inputs.set(36, "DROP MATERIALIZED TABLE IF EXISTS " + "c".repeat(100_000));
    inputs.set(46, "CREATE TABLE t (a INT) WITH ('k' = '" + "a=".repeat(100_000) + "')");
    inputs.set(56, "SHOW TABLES '" + "'".repeat(200_000));
    inputs.set(66, "SELECT " + "(".repeat(50_000) + "1" + ")".repeat(50_000) + " FROM t");
    inputs.set(
        76,
        "CREATE MATERIALIZED TABLE w AS SELECT * FROM t WHERE "
            + "a = 1 OR ".repeat(50_000)
            + "a = 2");

    assertTimeoutPreemptively(
        Duration.ofMinutes(4),
        () -> {
          int accepted = 0;
          for (int i = 0; i < inputs.size(); i++) {
            // Most go to the linter; every tenth runs for real in a scratch catalog.
            Answer answer =
                i % 10 == 0
                    ? api.sql(inputs.get(i), "fuzz", "db" + (i % 7))
                    : api.post("/v1/statements/validate", Map.of("statement", inputs.get(i)));
            String input = inputs.get(i);
            String shown = input.length() > 300 ? input.substring(0, 300) + "..." : input;
            assertThat(answer.status()).as(shown).isLessThan(500);
            if (answer.status() >= 400) {
              assertThat(answer.contentType()).as(shown).isEqualTo("application/problem+json");
              assertThat(answer.body().path("detail").asString()).as(shown).isNotBlank();
              assertThat(answer.body().path("code").asString()).as(shown).isNotBlank();
              // An error never echoes the whole input.
              assertThat(answer.text().length()).as(shown).isLessThan(16 * 1024);
            } else {
              accepted++;
            }
          }
          assertThat(accepted).isBetween(100, inputs.size() - 100);
        });
  }

  private static List<String> seeds() throws IOException {
    List<String> statements = new ArrayList<>();
    try (var files = Files.list(Path.of("src/test/resources/sql/seeds"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".sql")).sorted().toList()) {
        Parser.parseScript(Files.readString(file)).forEach(p -> statements.add(p.text()));
      }
    }
    return statements;
  }
}
