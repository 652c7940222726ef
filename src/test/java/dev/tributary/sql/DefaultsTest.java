package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DefaultsTest {

  static MaterializedTableDefinition effective(String sql) {
    return Defaults.effective(ParserTest.create(sql).definition());
  }

  @Test
  void shouldKeyAnAggregationByItsGroupByColumnsAsAnUpsertTable() {
    MaterializedTableDefinition d =
        effective(
            "CREATE MATERIALIZED TABLE t AS SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY"
                + " customer_id");
    assertThat(d.schema().primaryKey().columns()).containsExactly("customer_id");
    assertThat(d.options())
        .containsEntry("changelog.mode", "upsert")
        .containsEntry("kafka.cleanup-policy", "compact");
    assertThat(d.distribution().columns()).containsExactly("customer_id");
  }

  @Test
  void shouldWriteOutAFullTableSoThatItsShowCreateCanBeSubmittedAgain() {
    MaterializedTableDefinition full =
        effective(
            "CREATE MATERIALIZED TABLE t REFRESH MODE = FULL AS SELECT customer_id, COUNT(*) AS n"
                + " FROM orders GROUP BY customer_id");
    assertThat(full.freshness()).isEqualTo(Defaults.DEFAULT_FULL_FRESHNESS); // Flink's 1 hour
    assertThat(full.startMode()).isNull(); // every refresh reads its sources from the beginning
    assertThat(full.options()).containsEntry("kafka.cleanup-policy", "compact");
    String shown =
        Printer.print(
            new Statement.CreateMaterializedTable(
                new ObjectName("c", "d", "t"), false, false, full));
    Parser.parseScript(shown).forEach(Parser.Parsed::requireSupported);
    // AUTO without a freshness is CONTINUOUS (3 minutes) and starts where START_MODE says.
    MaterializedTableDefinition auto =
        effective("CREATE MATERIALIZED TABLE t AS SELECT customer_id FROM orders");
    assertThat(auto.refreshMode()).isEqualTo(Clauses.RefreshMode.CONTINUOUS);
    assertThat(auto.startMode()).isEqualTo(Defaults.DEFAULT_START_MODE);
  }

  @Test
  void shouldKeepTheChangesOfARetractRowOnOnePartition() {
    // Keyed by the derived key: the changes of one row go to one partition, in order.
    MaterializedTableDefinition keyed =
        effective(
            "CREATE MATERIALIZED TABLE t WITH ('changelog.mode' = 'retract') AS SELECT"
                + " customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id");
    assertThat(keyed.options()).containsEntry("changelog.mode", "retract");
    assertThat(keyed.distribution().columns()).containsExactly("customer_id");
    // No key to derive: one partition.
    MaterializedTableDefinition keyless =
        effective(
            "CREATE MATERIALIZED TABLE t WITH ('changelog.mode' = 'retract') AS SELECT o.order_id"
                + " FROM orders o JOIN customers c ON o.customer_id = c.customer_id");
    assertThat(keyless.distribution().columns()).isEmpty();
    assertThat(keyless.distribution().buckets()).isEqualTo(1);
  }

  @Test
  void shouldLeaveAnAppendTableUnkeyed() {
    MaterializedTableDefinition d =
        effective(
            "CREATE MATERIALIZED TABLE t WITH ('changelog.mode' = 'append') AS SELECT customer_id,"
                + " COUNT(*) AS n FROM orders GROUP BY customer_id");
    assertThat(d.schema()).isNull();
    assertThat(d.distribution().buckets()).isEqualTo(Defaults.DEFAULT_BUCKETS);
  }
}
