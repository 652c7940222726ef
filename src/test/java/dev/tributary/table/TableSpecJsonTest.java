package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.Column;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.system.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What goes into the spec column comes back equal, for every seed definition. */
class TableSpecJsonTest {

  @Test
  void shouldStoreAndLoadEverySeedDefinitionUnchanged() throws IOException {
    int checked = 0;
    try (var files = Files.list(Path.of("src/test/resources/sql/seeds"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".sql")).toList()) {
        for (Parser.Parsed parsed : Parser.parseScript(Files.readString(file))) {
          TableSpec spec = null;
          if (parsed.statement() instanceof Statement.CreateMaterializedTable create) {
            spec = TableSpec.of(create.definition()).withStopped(true);
          } else if (parsed.statement() instanceof Statement.CreatePipelineTable pipeline) {
            spec = TableSpec.of(pipeline, null);
          }
          if (spec != null) {
            assertThat(Json.read(Json.write(spec), TableSpec.class)).isEqualTo(spec);
            checked++;
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(15);
  }

  @Test
  void shouldSpellNullabilityAsTheStatusDoesAndReadTheOldSpelling() {
    Column required = Column.physical("id", "BIGINT", true, null);
    String json = Json.write(required);
    assertThat(json).contains("\"nullable\":false").doesNotContain("notNull");
    assertThat(Json.read(json, Column.class)).isEqualTo(required);
    // Rows stored before the API said nullable hold notNull.
    assertThat(
            Json.read(
                "{\"name\":\"id\",\"kind\":\"PHYSICAL\",\"type\":\"BIGINT\",\"notNull\":true}",
                Column.class))
        .isEqualTo(required);
    assertThat(
            Json.read(
                    "{\"name\":\"v\",\"kind\":\"PHYSICAL\",\"type\":\"INT\",\"notNull\":false}",
                    Column.class)
                .notNull())
        .isFalse();
  }
}
