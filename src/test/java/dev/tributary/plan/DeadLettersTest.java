package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.Column;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

  private static final ObjectName TABLE = new ObjectName("cat", "db", "orders_clean");

  @Test
  void shouldResolveTheTargetInTheTablesDatabaseWithConfluentsDefault() {
    assertThat(DeadLetterTable.target(TABLE, Map.of()))
        .isEqualTo(new ObjectName("cat", "db", "error_log"));
    assertThat(DeadLetterTable.target(TABLE, Map.of(DeadLetterTable.TARGET, "bad_orders")))
        .isEqualTo(new ObjectName("cat", "db", "bad_orders"));
    assertThat(DeadLetterTable.target(TABLE, Map.of(DeadLetterTable.TARGET, "other.bad")))
        .isEqualTo(new ObjectName("cat", "other", "bad"));
    assertThat(DeadLetterTable.invalidTarget("a.b.c.d")).contains("[catalog.][database.]table");
    assertThat(DeadLetterTable.invalidTarget("a..b")).contains("empty name part");
    assertThat(DeadLetterTable.invalidTarget("db.bad")).isNull();
  }

  @Test
  void shouldKnowItsColumnsAsFlinkPrintsThem() {
    assertThat(DeadLetterTable.hasItsColumns(DeadLetterTable.schema())).isTrue();
    List<Column> printed = new ArrayList<>();
    for (Column c : DeadLetterTable.schema().columns()) {
      String type =
          switch (c.type()) {
            case "STRING" -> "VARCHAR(2147483647)";
            case "TIMESTAMP_LTZ(3)" -> "TIMESTAMP(3) WITH LOCAL TIME ZONE";
            default -> c.type();
          };
      printed.add(Column.physical(c.name(), type, c.notNull(), null));
    }
    assertThat(DeadLetterTable.hasItsColumns(new TableSchema(printed, null, null, List.of())))
        .isTrue();
    List<Column> other = new ArrayList<>(printed);
    other.set(1, Column.physical("error_message", "INT", true, null));
    assertThat(DeadLetterTable.hasItsColumns(new TableSchema(other, null, null, List.of())))
        .isFalse();
  }

  @Test
  void shouldDeclareTheSourceWithItsErrorsAndAViewOfTheReadableRowsUnderItsOwnName() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", "kafka");
    options.put("topic", "orders");
    options.put("format", "guarded");
    options.put("guarded.format", "json");
    options.put("guarded.mode", "log");
    Statement.CreateSourceTable source =
        new Statement.CreateSourceTable(
            new ObjectName("cat", "db", "orders"),
            true,
            new TableSchema(
                List.of(
                    Column.physical("id", "STRING", false, null),
                    Column.physical("amount", "DOUBLE", false, null)),
                null,
                null,
                List.of()),
            null,
            options);

    List<String> declarations = DeadLetters.declarations(source);

    assertThat(declarations).hasSize(2);
    String raw = declarations.get(0);
    assertThat(raw)
        .contains("`cat`.`db`.`orders$dead_letters`")
        .contains("`$tributary_key` BYTES")
        .contains("'key.format' = 'raw'")
        .contains("'key.fields' = '$tributary_key'")
        .contains("'value.fields-include' = 'EXCEPT_KEY'")
        .contains("'value.format' = 'guarded'")
        .contains("'value.guarded.format' = 'json'")
        .contains("'value.guarded.mode' = 'log'")
        .contains("METADATA FROM 'value.error' VIRTUAL")
        .contains("METADATA FROM 'offset' VIRTUAL")
        .doesNotContain("'format' = 'guarded'");
    assertThat(declarations.get(1))
        .isEqualTo(
            "CREATE TEMPORARY VIEW `cat`.`db`.`orders` AS SELECT `id`, `amount` FROM"
                + " `cat`.`db`.`orders$dead_letters` WHERE `$tributary_error` IS NULL");

    String set =
        DeadLetters.statementSet(TABLE, "INSERT INTO tributary_sink\nSELECT 1", List.of(source));
    assertThat(set)
        .startsWith("EXECUTE STATEMENT SET BEGIN\nINSERT INTO tributary_sink\nSELECT 1;")
        .contains("INSERT INTO tributary_dead_letter")
        .contains("'cat.db.orders_clean'")
        .contains("`$tributary_key`")
        .contains("WHERE `$tributary_error` IS NOT NULL")
        .endsWith(";\nEND");
  }
}
