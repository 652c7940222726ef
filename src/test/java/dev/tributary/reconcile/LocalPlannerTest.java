package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.adapter.flink.PlannerFlinkSql;
import dev.tributary.adapter.flink.SteppedClock;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkSql;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Validation asks Flink's planner in this process (the real one) before the gateway (a fake at the
 * port) only when the gateway runs the same Flink version, and the gateway decides what the planner
 * here refuses.
 */
class LocalPlannerTest {

  final PlannerFlinkSql local = new PlannerFlinkSql();
  final AtomicInteger gatewayAsked = new AtomicInteger();
  final AtomicReference<String> gatewayVersion =
      new AtomicReference<>(local.version("default").orElseThrow());
  final ObjectName table = new ObjectName("c", "d", "t");
  final SteppedClock clock = new SteppedClock(Instant.parse("2026-12-05T12:00:00Z"));
  final Map<ObjectName, Statement.CreateSourceTable> sources;
  final FlinkSql gateway;
  final QueryPlanner planner;

  LocalPlannerTest() {
    FlinkSql flink = new FakeWorld.Flink();
    gateway =
        (FlinkSql)
            Proxy.newProxyInstance(
                FlinkSql.class.getClassLoader(),
                new Class<?>[] {FlinkSql.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("version")) {
                    return Optional.ofNullable(gatewayVersion.get());
                  }
                  if (method.getName().equals("inferSchema")) {
                    gatewayAsked.incrementAndGet();
                  }
                  try {
                    return method.invoke(flink, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    Statement.CreateSourceTable orders =
        (Statement.CreateSourceTable)
            Parser.parse(
                "CREATE TABLE c.d.orders (order_id STRING, customer_id INT, price DOUBLE) WITH"
                    + " ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers'"
                    + " = '127.0.0.1:9', 'format' = 'json')");
    sources = Map.of(orders.name(), orders);
    planner =
        new QueryPlanner(gateway, local, name -> Optional.ofNullable(sources.get(name)), clock);
  }

  static MaterializedTableDefinition definition(String query) {
    return ((Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t AS " + query))
        .definition();
  }

  QueryPlanner.QueryShape validate(String query) {
    return planner.validate(table, definition(query));
  }

  @Test
  void shouldAskThePlannerHereWhenTheGatewayRunsItsVersion() {
    QueryPlanner.QueryShape shape = validate("SELECT customer_id, price FROM orders");
    assertThat(gatewayAsked).hasValue(0);
    // The real planner's columns (the fake gateway would say order_id and price).
    assertThat(shape.columns())
        .containsExactly(
            new FlinkSql.Column("customer_id", "INT", true),
            new FlinkSql.Column("price", "DOUBLE", true));
    assertThat(shape.changelogMode().insertOnly()).isTrue();
  }

  @Test
  void shouldAskTheGatewayOfAnotherVersion() {
    gatewayVersion.set("1.20.1");
    QueryPlanner.QueryShape shape = validate("SELECT customer_id, price FROM orders");
    assertThat(gatewayAsked).hasValue(1);
    assertThat(shape.columns().stream().map(FlinkSql.Column::name))
        .isEqualTo(List.of("order_id", "price"));
  }

  @Test
  void shouldStopAskingAPlannerWhoseClassesDoNotLoad() {
    AtomicInteger opened = new AtomicInteger();
    FlinkSql unloadable =
        (FlinkSql)
            Proxy.newProxyInstance(
                FlinkSql.class.getClassLoader(),
                new Class<?>[] {FlinkSql.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("version")) {
                    return Optional.of(gatewayVersion.get());
                  }
                  if (method.getName().equals("openSession")) {
                    opened.incrementAndGet();
                    throw new NoClassDefFoundError("org/apache/flink/table/planner/Missing");
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    QueryPlanner withBroken =
        new QueryPlanner(
            gateway, unloadable, name -> Optional.ofNullable(sources.get(name)), clock);
    withBroken.validate(table, definition("SELECT order_id FROM orders"));
    withBroken.validate(table, definition("SELECT price FROM orders"));
    assertThat(gatewayAsked).as("the gateway answered both").hasValue(2);
    assertThat(opened.get()).as("not asked again once its classes failed").isBetween(1, 2);
  }

  @Test
  void shouldLetTheGatewayDecideWhatThePlannerHereRefuses() {
    // A function the cluster may have (a jar of its own) and this process does not.
    QueryPlanner.QueryShape shape = validate("SELECT clusters_own(order_id) AS x FROM orders");
    assertThat(gatewayAsked).hasValue(1);
    assertThat(shape.columns()).isNotEmpty();
  }
}
