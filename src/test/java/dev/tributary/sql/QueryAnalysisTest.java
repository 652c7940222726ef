package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class QueryAnalysisTest {

  static List<String> tables(String query) {
    return QueryAnalysis.tables(query).orElseThrow().stream().map(ObjectName::toString).toList();
  }

  @Test
  void shouldFindTheTableOfAWindowTableFunction() {
    assertThat(
            tables(
                "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders,"
                    + " DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) GROUP BY window_start,"
                    + " window_end"))
        .containsExactly("orders");
    assertThat(
            tables(
                "SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE examples.marketplace.orders,"
                    + " DESCRIPTOR(event_time), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) GROUP BY"
                    + " window_start, window_end"))
        .containsExactly("examples.marketplace.orders");
  }

  @Test
  void shouldLeaveOutCteNamesAndFindWhatTheyRead() {
    assertThat(
            tables(
                "WITH big AS (SELECT * FROM orders WHERE price > 50), c AS (SELECT * FROM big)"
                    + " SELECT c.order_id FROM c JOIN customers AS cu ON c.customer_id ="
                    + " cu.customer_id"))
        .containsExactly("orders", "customers");
  }

  @Test
  void shouldFindTablesInParenthesesSubqueriesUnionsAndTemporalJoins() {
    assertThat(tables("SELECT * FROM (SELECT * FROM (orders AS o JOIN items AS i ON o.id = i.id))"))
        .containsExactly("orders", "items");
    // Flink's grammar has no parenthesised table name: the gateway would refuse it too.
    assertThat(QueryAnalysis.syntaxError("SELECT * FROM (orders)")).isPresent();
    assertThat(
            tables(
                "SELECT * FROM orders o WHERE o.customer_id IN (SELECT customer_id FROM vip)"
                    + " UNION ALL SELECT * FROM db.archived"))
        .containsExactly("orders", "vip", "db.archived");
    assertThat(
            tables(
                "SELECT o.order_id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF"
                    + " o.event_time AS r ON o.currency = r.currency"))
        .containsExactly("orders", "rates");
    assertThat(
            tables(
                "SELECT o.order_id, t.tag FROM orders o, LATERAL TABLE(split(o.tags)) AS t(tag)"))
        .containsExactly("orders");
  }

  @Test
  void shouldReportASyntaxErrorWithItsPositionInTheQuery() {
    QueryAnalysis.SyntaxError error =
        QueryAnalysis.syntaxError("SELECT order_id,\nFROM orders").orElseThrow();

    assertThat(error.line()).isEqualTo(2);
    assertThat(error.column()).isEqualTo(1);
    assertThat(error.message()).contains("FROM");
    assertThat(QueryAnalysis.syntaxError("SELECT order_id FROM orders")).isEmpty();
  }
}
