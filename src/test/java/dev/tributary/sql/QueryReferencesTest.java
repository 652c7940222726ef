package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueryReferencesTest {

  @Test
  void shouldFindTablesAfterFromJoinAndCommas() {
    assertThat(
            QueryReferences.tables(
                "SELECT o.order_id, c.name FROM examples.marketplace.orders o"
                    + " JOIN examples.marketplace.customers AS c ON o.customer_id = c.customer_id, `db`.products p"
                    + " WHERE o.price > (SELECT avg(price) FROM stats)"))
        .containsExactly(
            new ObjectName("examples", "marketplace", "orders"),
            new ObjectName("examples", "marketplace", "customers"),
            new ObjectName(null, "db", "products"),
            ObjectName.of("stats"));
  }

  @Test
  void shouldLookInsideStreamButSkipTableFunctionsAndStrings() {
    assertThat(QueryReferences.tables("SELECT * FROM STREAM(samples.tpch.orders)"))
        .containsExactly(new ObjectName("samples", "tpch", "orders"));
    assertThat(
            QueryReferences.tables("SELECT * FROM STREAM read_files('s3://x', format => 'json')"))
        .isEmpty();
    assertThat(QueryReferences.tables("SELECT 'FROM fake' AS x FROM real_one"))
        .containsExactly(ObjectName.of("real_one"));
  }
}
