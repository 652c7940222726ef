package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.FlinkSql.Column;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlowPlannerTest {

  static final ObjectName TABLE = new ObjectName("c", "d", "t");
  static final List<Column> TABLE_COLUMNS =
      List.of(
          new Column("id", "STRING", false),
          new Column("amount", "DOUBLE", true),
          new Column("origin", "STRING", true));

  static Statement.CreateFlow flow(boolean byName, String query) {
    return new Statement.CreateFlow(
        ObjectName.of("f"), null, ObjectName.of("t"), null, false, byName, query);
  }

  @Test
  void shouldMatchByNameFillingMissingNullableColumnsAndWideningTypes() {
    String mapped =
        FlowPlanner.mapped(
            flow(true, "SELECT n, id FROM s"),
            TABLE,
            List.of(new Column("n", "INT", true), new Column("id", "STRING", false)),
            List.of(new Column("id", "STRING", false), new Column("n", "BIGINT", true)));

    assertThat(mapped)
        .isEqualTo("SELECT `id`, CAST(`n` AS BIGINT) AS `n` FROM (\nSELECT n, id FROM s\n)");
  }

  @Test
  void shouldKeepAQueryThatAlreadyGivesTheTableItsColumns() {
    String query = "SELECT id, amount, origin FROM s";

    assertThat(FlowPlanner.mapped(flow(true, query), TABLE, TABLE_COLUMNS, TABLE_COLUMNS))
        .isEqualTo(query);
  }

  @Test
  void shouldMatchByPositionWithoutByName() {
    String mapped =
        FlowPlanner.mapped(
            flow(false, "SELECT a, b, c FROM s"),
            TABLE,
            List.of(
                new Column("a", "STRING", false),
                new Column("b", "DOUBLE", true),
                new Column("c", "CHAR(3)", false)),
            TABLE_COLUMNS);

    assertThat(mapped)
        .isEqualTo(
            "SELECT `a` AS `id`, `b` AS `amount`, CAST(`c` AS STRING) AS `origin` FROM (\n"
                + "SELECT a, b, c FROM s\n)");
  }

  @Test
  void shouldNameEveryColumnThatDoesNotFit() {
    assertThatThrownBy(
            () ->
                FlowPlanner.mapped(
                    flow(true, "q"),
                    TABLE,
                    List.of(
                        new Column("ID", "STRING", false), new Column("amount", "STRING", true)),
                    TABLE_COLUMNS))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("'ID' is not a column of c.d.t (did you mean 'id'?)")
        .hasMessageContaining("column 'id' of c.d.t is NOT NULL and the query does not produce it")
        .hasMessageContaining(
            "column 'amount' is DOUBLE in c.d.t but the query's 'amount' is STRING");
    assertThatThrownBy(
            () ->
                FlowPlanner.mapped(
                    flow(false, "q"),
                    TABLE,
                    List.of(new Column("id", "STRING", true)),
                    TABLE_COLUMNS))
        .hasMessageContaining("produces 1 columns and c.d.t has 3");
    assertThatThrownBy(
            () ->
                FlowPlanner.mapped(
                    flow(true, "q"),
                    TABLE,
                    List.of(new Column("id", "STRING", true)),
                    TABLE_COLUMNS))
        .hasMessageContaining("is NOT NULL but the query's 'id' can be NULL");
  }

  @Test
  void shouldWidenOnlyWithoutLoss() {
    assertThat(QueryPlanner.widens("CHAR(3)", "STRING")).isTrue();
    assertThat(QueryPlanner.widens("VARCHAR(5)", "VARCHAR(10)")).isTrue();
    assertThat(QueryPlanner.widens("VARCHAR(10)", "VARCHAR(5)")).isFalse();
    assertThat(QueryPlanner.widens("INT", "BIGINT")).isTrue();
    assertThat(QueryPlanner.widens("BIGINT", "INT")).isFalse();
    assertThat(QueryPlanner.widens("INT", "DOUBLE")).isTrue();
    assertThat(QueryPlanner.widens("DOUBLE", "INT")).isFalse();
    assertThat(QueryPlanner.widens("STRING", "INT")).isFalse();
  }
}
