package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  void shouldWalkTheLongestOrChainAStatementMayHoldWithoutOverflowingTheStack() throws Exception {
    // The parser builds a left-deep tree as deep as the chain is long: 5,000 terms are the
    // 20,000 tokens a statement may hold. A recursive walk overflowed a request thread's stack
    // there (a 500 where a plan belongs); this runs on a thread with half that stack.
    String chain = "order_id = 1 OR ".repeat(Limits.MAX_TOKENS / 4 - 2);
    String query =
        "SELECT * FROM orders WHERE " + chain + "order_id IN (SELECT id FROM refunds) OR true";
    String grouped = "SELECT order_id, SUM(amount) FROM orders WHERE " + chain + "true GROUP BY 1";
    List<Object> answers = new ArrayList<>();
    Thread small =
        new Thread(
            null,
            () -> {
              answers.add(QueryAnalysis.tables(query));
              answers.add(QueryAnalysis.keepsState(query));
              answers.add(QueryAnalysis.keepsState(grouped));
            },
            "small-stack",
            512 * 1024);
    small.setUncaughtExceptionHandler((t, e) -> answers.add(e));
    small.start();
    small.join();

    assertThat(answers)
        .containsExactly(
            Optional.of(List.of(ObjectName.of("orders"), ObjectName.of("refunds"))), false, true);
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

  @Test
  void shouldSayThatAReservedWordUsedAsANameNeedsBackticks() {
    // Seed 003's dashboard, verbatim: a column named date.
    QueryAnalysis.SyntaxError error =
        QueryAnalysis.syntaxError("SELECT\n  date, count(*) AS n FROM orders GROUP BY date")
            .orElseThrow();

    assertThat(error.message())
        .startsWith("`date` is a reserved word in Flink SQL; quote it as `date` with backticks");
    assertThat(error.line()).isEqualTo(2);
    assertThat(error.column()).isEqualTo(3);
    assertThat(QueryAnalysis.syntaxError("SELECT `date`, count(*) FROM orders GROUP BY `date`"))
        .isEmpty();
    // A word that is not reserved keeps the parser's message.
    assertThat(QueryAnalysis.syntaxError("SELECT a b c FROM orders").orElseThrow().message())
        .doesNotContain("reserved word");
  }

  @Test
  void shouldDeriveTheKeyOfAnAggregationFromItsGroupByColumns() {
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id"))
        .contains(List.of("customer_id"));
    // Seed 003's dashboard: the key is the output name, whatever the order of the SELECT list.
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT category, count(*), sum(amount) FROM orders WHERE event_time > NOW() -"
                    + " INTERVAL '1' HOUR GROUP BY category"))
        .contains(List.of("category"));
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT COUNT(*) AS n, o.product_id AS product, o.customer_id FROM orders o GROUP"
                    + " BY o.customer_id, o.product_id ORDER BY n"))
        .contains(List.of("customer_id", "product"));
    assertThat(QueryAnalysis.derivedKey("SELECT DISTINCT customer_id, product_id FROM orders"))
        .contains(List.of("customer_id", "product_id"));
  }

  @Test
  void shouldDeriveTheKeyOfAGroupingByExpressionsThatAreSelected() {
    // The daily counts: every grouping expression is selected, under a name.
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT CAST(event_time AS DATE) AS d, product_id, COUNT(*) AS n FROM orders"
                    + " GROUP BY CAST(event_time AS DATE), product_id"))
        .contains(List.of("d", "product_id"));
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT UPPER(product_id) AS p, COUNT(*) FROM orders GROUP BY UPPER(product_id)"))
        .contains(List.of("p"));
    // Grouping by the output alias, as Flink allows.
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT DATE_FORMAT(event_time, 'yyyy-MM-dd') AS dt, COUNT(*) AS n FROM orders"
                    + " GROUP BY dt"))
        .contains(List.of("dt"));
    assertThat(
            QueryAnalysis.unselectedGroupItems(
                "SELECT CAST(event_time AS DATE) AS d, COUNT(*) FROM orders GROUP BY"
                    + " CAST(event_time AS DATE)"))
        .isEmpty();
  }

  @Test
  void shouldDeriveNoKeyWhenTheGroupingIsNotAllSelectedOrIsAWindow() {
    assertThat(QueryAnalysis.derivedKey("SELECT COUNT(*) AS n FROM orders GROUP BY customer_id"))
        .isEmpty();
    // An expression grouped by but selected without a name has no output column to key on.
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT UPPER(product_id), COUNT(*) FROM orders GROUP BY UPPER(product_id)"))
        .isEmpty();
    assertThat(
            QueryAnalysis.unselectedGroupItems(
                "SELECT COUNT(*) AS n FROM orders GROUP BY customer_id, UPPER(product_id)"))
        .containsExactly("customer_id", "UPPER(product_id)");
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders,"
                    + " DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) GROUP BY window_start,"
                    + " window_end"))
        .isEmpty();
    assertThat(QueryAnalysis.derivedKey("SELECT * FROM orders")).isEmpty();
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT customer_id FROM orders GROUP BY customer_id UNION ALL SELECT customer_id"
                    + " FROM orders GROUP BY customer_id"))
        .isEmpty();
    assertThat(
            QueryAnalysis.derivedKey(
                "SELECT customer_id, COUNT(*) FROM orders GROUP BY ROLLUP (customer_id)"))
        .isEmpty();
  }
}
