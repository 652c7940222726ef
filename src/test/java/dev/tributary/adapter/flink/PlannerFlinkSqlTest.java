package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tributary.port.FlinkSql;
import dev.tributary.port.FlinkSql.Column;
import dev.tributary.port.FlinkSql.RowKind;
import dev.tributary.port.FlinkSql.Session;
import dev.tributary.port.FlinkSql.StatementFailedException;
import dev.tributary.system.OnThread;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Flink's planner in this process answers validation's statements as a gateway does: columns as
 * DESCRIBE prints them, the changelog of the optimized plan, a refusal with Flink's message and its
 * position. It runs no job.
 */
class PlannerFlinkSqlTest {

  final PlannerFlinkSql planner = new PlannerFlinkSql();
  final Session session =
      planner.openSession(
          "blue",
          "test",
          Map.of("table.builtin-catalog-name", "shop", "table.builtin-database-name", "sales"));

  PlannerFlinkSqlTest() {
    planner.configure(
        session,
        "CREATE TEMPORARY TABLE orders (order_id STRING, customer_id INT, price DOUBLE, event_time"
            + " TIMESTAMP(3), WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND) WITH"
            + " ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' ="
            + " '127.0.0.1:9', 'properties.group.id' = 'g', 'scan.startup.mode' ="
            + " 'earliest-offset', 'format' = 'json')");
  }

  @AfterEach
  void close() {
    planner.closeSession(session);
    assertThat(planner.open()).isZero();
  }

  @Test
  void shouldDescribeAQueryAsDescribePrintsItsColumns() {
    assertThat(
            planner.inferSchema(
                session, "SELECT order_id, price * 2 AS doubled, event_time FROM orders"))
        .containsExactly(
            new Column("order_id", "STRING", true),
            new Column("doubled", "DOUBLE", true),
            new Column("event_time", "TIMESTAMP(3)", true));
    assertThat(planner.open()).as("the probe view is dropped, the session stays").isOne();
  }

  /**
   * The longest chain a statement may hold, planned from a thread with a small stack (a script's
   * questions are answered on pooled threads of 1 MiB): the planner's validator recurses once per
   * operator, so the work runs on a deep stack whatever the caller's.
   */
  @Test
  void shouldPlanTheLongestOrChainAStatementMayHoldFromAThreadWithASmallStack() throws Exception {
    String query =
        "SELECT order_id FROM orders WHERE " + "customer_id = 1 OR ".repeat(5_000) + "price > 2";
    Object columns =
        OnThread.answer("small-stack", 256 * 1024, () -> planner.inferSchema(session, query));
    Object kinds =
        OnThread.answer(
            "small-stack", 256 * 1024, () -> planner.changelogMode(session, query).kinds());
    assertThat(columns).isEqualTo(List.of(new Column("order_id", "STRING", true)));
    assertThat(kinds).isEqualTo(Set.of(RowKind.INSERT));
  }

  /** Calcite's metadata handlers live in a thread local set where a session's planner was made. */
  @Test
  void shouldExplainOnAThreadThatNeverMadeASession() throws Exception {
    Object answer =
        OnThread.answer(
            "never-made-a-session",
            0, // the JVM's default
            () ->
                planner
                    .changelogMode(
                        session,
                        "SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id")
                    .kinds());
    assertThat(answer).isEqualTo(Set.of(RowKind.INSERT, RowKind.UPDATE_AFTER));
  }

  @Test
  void shouldTellAppendsFromUpdates() {
    assertThat(planner.changelogMode(session, "SELECT * FROM orders WHERE price > 5").kinds())
        .containsExactly(RowKind.INSERT);
    assertThat(
            planner
                .changelogMode(
                    session,
                    "SELECT customer_id, SUM(price) AS total FROM orders GROUP BY customer_id")
                .kinds())
        .contains(RowKind.INSERT, RowKind.UPDATE_AFTER)
        .hasSizeGreaterThan(1);
  }

  @Test
  void shouldRefuseWithFlinksMessageAndThePositionInTheUsersQuery() {
    String query = "SELECT order_id, nope FROM orders";
    // The probes (a view of the query) and the one validation of its Table: both in the query.
    for (ThrowingCallable refused :
        List.<ThrowingCallable>of(
            () -> planner.inferSchema(session, query), () -> planner.describe(session, query))) {
      assertThatThrownBy(refused)
          .isInstanceOfSatisfying(
              StatementFailedException.class,
              e -> {
                assertThat(e.getMessage()).contains("Column 'nope' not found in any table");
                assertThat(e.line()).isEqualTo(1);
                assertThat(e.column()).isEqualTo(18); // not in the probe view's text
              });
    }
    assertThatThrownBy(() -> planner.changelogMode(session, "SELECT * FROM missing"))
        .isInstanceOf(StatementFailedException.class)
        .hasMessageContaining("Object 'missing' not found");
  }

  /**
   * {@code describe} validates a query once (its Table) where the probes validate it three times:
   * it must answer as they do, columns as DESCRIBE prints them and the same changelog, for what
   * tells types apart (NOT NULL, a rowtime, decimals, rows and maps, names Flink makes up, a
   * window's bounds, updates).
   */
  @Test
  void shouldDescribeAQueryAtOnceAsTheProbesDo() {
    planner.configure(
        session,
        "CREATE TEMPORARY TABLE typed (id BIGINT NOT NULL, amount DECIMAL(10, 2), tags"
            + " MAP<STRING, INT>, address ROW<street STRING, zip INT NOT NULL>, ts"
            + " TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) WITH"
            + " ('connector' = 'datagen')");
    List<String> queries =
        List.of(
            "SELECT * FROM orders",
            "SELECT order_id, price * 2, UPPER(order_id), CAST(price AS DECIMAL(8, 1)) FROM orders",
            "SELECT id, amount, tags, address, address.zip, ts, PROCTIME() AS pt FROM typed",
            "SELECT id, COALESCE(amount, 0) AS amount FROM typed WHERE id > 3",
            "SELECT customer_id, COUNT(*) AS n, MAX(price) FROM orders GROUP BY customer_id",
            "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE orders,"
                + " DESCRIPTOR(event_time), INTERVAL '1' MINUTE)) GROUP BY window_start,"
                + " window_end",
            "SELECT o.order_id, t.amount FROM orders o JOIN typed t ON o.customer_id = t.id");
    for (String query : queries) {
      FlinkSql.Description atOnce = planner.describe(session, query);
      assertThat(atOnce.columns()).as(query).isEqualTo(planner.inferSchema(session, query));
      assertThat(atOnce.changelogMode()).as(query).isEqualTo(planner.changelogMode(session, query));
    }
    assertThat(planner.describe(session, queries.get(4)).changelogMode().insertOnly()).isFalse();
  }

  /**
   * A query's Table names a duplicated column anew ({@code order_id0}) where a view of it is
   * refused: such a query is described by the probes, so the refusal is the same.
   */
  @Test
  void shouldRefuseADuplicatedNameAsTheProbeViewDoes() {
    String query = "SELECT order_id, customer_id, order_id FROM orders";
    assertThatThrownBy(() -> planner.describe(session, query))
        .isInstanceOfSatisfying(
            StatementFailedException.class,
            e -> {
              assertThat(e.getMessage()).contains("same name `order_id`");
              assertThat(e.line()).isEqualTo(1);
            })
        .hasMessage(catchThrowable(() -> planner.inferSchema(session, query)).getMessage());
    assertThat(
            PlannerFlinkSql.renamed(
                List.of(new Column("a", "INT", true), new Column("a0", "INT", true))))
        .isTrue();
    assertThat(
            PlannerFlinkSql.renamed(
                List.of(new Column("a1", "INT", true), new Column("b", "INT", true))))
        .isFalse();
  }

  @Test
  void shouldRunNoJob() {
    planner.configure(
        session, "CREATE TEMPORARY TABLE sink (order_id STRING) WITH ('connector' = 'blackhole')");
    assertThatThrownBy(
            () -> planner.execute(session, "INSERT INTO sink SELECT order_id FROM orders"))
        .isInstanceOf(StatementFailedException.class)
        .hasMessageContaining("runs no job");
    assertThatThrownBy(() -> planner.execute(session, "SELECT * FROM orders"))
        .isInstanceOf(StatementFailedException.class)
        .hasMessageContaining("runs no job");
  }

  @Test
  void shouldPlanTheSessionsRuntimeMode() {
    Session batch = planner.openSession("batch", Map.of("execution.runtime-mode", "batch"));
    try {
      planner.configure(
          batch,
          "CREATE TEMPORARY TABLE events (id INT) WITH ('connector' = 'datagen',"
              + " 'number-of-rows' = '3')");
      FlinkSql.StatementResult plan =
          planner.execute(batch, "EXPLAIN SELECT id, COUNT(*) AS n FROM events GROUP BY id");
      assertThat(String.valueOf(plan.rows().get(0).get(0))).contains("HashAggregate");
    } finally {
      planner.closeSession(batch);
    }
  }

  @Test
  void shouldNameItsFlinkVersion() {
    assertThat(planner.version("any")).get().asString().matches("\\d+\\.\\d+.*");
  }
}
