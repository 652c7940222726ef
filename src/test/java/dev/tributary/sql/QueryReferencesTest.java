package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

  @Test
  void shouldKeepWhatAQueryReadsByItsTextUpTo4Kb() {
    String query = "SELECT order_id FROM kept_" + System.nanoTime() + " WHERE price > 1";
    List<ObjectName> first = QueryReferences.tables(query);
    assertThat(first).hasSize(1);
    assertThat(QueryReferences.tables(query)).isSameAs(first); // not parsed again
    String longer = query + " AND '" + "x".repeat(5000) + "' <> ''";
    List<ObjectName> once = QueryReferences.tables(longer);
    assertThat(QueryReferences.tables(longer)).isEqualTo(once).isNotSameAs(once);
  }
}
