package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.adapter.flink.SteppedClock;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkSql;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The planner asks Flink once per question Flink is given: definitions that differ only in what
 * Flink never sees (options, FRESHNESS) share an answer, and a changed source table or query is a
 * new question. Questions about queries over the same sources are asked in one warm session.
 */
class ValidationCacheTest {

  /** Questions put to Flink: a query described (its columns; its changelog is asked beside). */
  final AtomicInteger asked = new AtomicInteger();

  final AtomicInteger sessions = new AtomicInteger();

  /**
   * The compute pools whose gateway each session was opened on (from two threads: the columns and
   * the changelog are asked at the same time, in one warm session or in two).
   */
  final List<String> pools = new CopyOnWriteArrayList<>();

  final Map<ObjectName, Statement.CreateSourceTable> sources = new HashMap<>();
  final ObjectName table = new ObjectName("c", "d", "t");
  QueryPlanner planner;
  final SteppedClock clock = new SteppedClock(Instant.parse("2026-12-04T12:00:00Z"));

  ValidationCacheTest() {
    FlinkSql flink = new FakeWorld.Flink();
    FlinkSql counted =
        (FlinkSql)
            Proxy.newProxyInstance(
                FlinkSql.class.getClassLoader(),
                new Class<?>[] {FlinkSql.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("openSession")) {
                    sessions.incrementAndGet();
                    if (args.length == 3) {
                      pools.add((String) args[0]);
                    }
                  }
                  if (method.getName().equals("inferSchema")) {
                    asked.incrementAndGet();
                  }
                  try {
                    return method.invoke(flink, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    planner = new QueryPlanner(counted, name -> Optional.ofNullable(sources.get(name)), clock);
    declareOrders("(order_id STRING, price DOUBLE)");
  }

  void declareOrders(String columns) {
    sources.put(
        new ObjectName("c", "d", "orders"),
        (Statement.CreateSourceTable)
            Parser.parse(
                "CREATE TABLE c.d.orders "
                    + columns
                    + " WITH ('connector' = 'kafka', 'topic' = 'orders')"));
  }

  static MaterializedTableDefinition definition(String clauses, String query) {
    return ((Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t " + clauses + " AS " + query))
        .definition();
  }

  @Test
  void shouldAskTheGatewayOfThePoolTheJobRunsOn() {
    String query = "SELECT order_id FROM orders";
    planner.validate(table, definition("WITH ('compute-pool' = 'blue')", query));
    assertThat(pools).containsOnly("blue");

    // The same question on another pool is another question: its gateway may lack a connector.
    planner.validate(table, definition("", query));
    assertThat(asked).hasValue(2);
    assertThat(pools.stream().distinct()).containsExactly("blue", "default");
  }

  @Test
  void shouldAskFlinkOnceForWhatItIsGivenAndAgainWhenThatChanges() {
    String query = "SELECT order_id, price FROM orders WHERE price > 10";
    planner.validate(table, definition("WITH ('kafka.retention.time' = '1 h')", query));
    assertThat(asked).hasValue(1);
    // The columns in one warm session, the changelog in another at the same time (or in the same
    // one, when it was given back first).
    assertThat(sessions.get()).isBetween(1, 2);

    // ALTER ... SET, a new FRESHNESS: Flink is given the same query and sources.
    planner.validate(table, definition("WITH ('kafka.retention.time' = '2 h')", query));
    planner.validate(table, definition("FRESHNESS = INTERVAL '7' SECOND", query));
    assertThat(asked).as("options and freshness are not Flink's question").hasValue(1);

    planner.validate(table, definition("", query + " AND price < 100"));
    assertThat(asked).as("a new query").hasValue(2);
    int warm = sessions.get();
    assertThat(warm).as("asked in the warm sessions of the same sources").isBetween(1, 2);

    declareOrders("(order_id STRING, price DOUBLE, customer_id INT)");
    planner.validate(table, definition("", query));
    assertThat(asked).as("a changed source table").hasValue(3);
    assertThat(sessions.get()).as("other declarations, other sessions").isGreaterThan(warm);
  }

  @Test
  void shouldTakeTheAcceptingCallsAnswerForTheReconcilersFirstLookOnly() {
    String query = "SELECT order_id FROM orders";
    planner.validate(table, definition("", query)); // the CREATE's check
    assertThat(asked).hasValue(1);

    clock.advance(Duration.ofMinutes(5)); // the table waited its turn behind a declared set
    planner.validateAccepted(table, definition("", query));
    assertThat(asked).as("the reconciler takes the accepting call's answer").hasValue(1);
    planner.validate(table, definition("", query));
    assertThat(asked).as("a user's check asks Flink after a minute").hasValue(2);

    clock.advance(QueryPlanner.ACCEPTED_FOR.plusSeconds(1));
    planner.validateAccepted(table, definition("", query));
    assertThat(asked).as("an answer older than that is asked again").hasValue(3);
  }

  /**
   * The reconciler's first look takes the accepting call's answer without writing that it asks
   * Flink: it learns whether one is kept without asking.
   */
  @Test
  void shouldTellAKeptAnswerWithoutAskingFlink() {
    String query = "SELECT order_id FROM orders";
    assertThat(planner.acceptedFromKept(table, definition("", query))).isEmpty();
    assertThat(asked).as("nothing kept, and Flink not asked").hasValue(0);

    QueryPlanner.QueryShape shape = planner.validate(table, definition("", query));
    assertThat(planner.acceptedFromKept(table, definition("", query))).contains(shape);
    assertThat(planner.acceptedFromKept(table, definition("", query + " WHERE price > 1")))
        .as("another question")
        .isEmpty();

    clock.advance(QueryPlanner.ACCEPTED_FOR.plusSeconds(1));
    assertThat(planner.acceptedFromKept(table, definition("", query))).isEmpty();
    assertThat(asked).hasValue(1);
  }
}
