package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.tributary.plan.ChangePlan;
import dev.tributary.plan.ChangePlanner;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ReadOnce;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Plans of changes against fakes of Flink, Kafka and the registry: what each change would do. */
class ChangePlannerTest {

  static final String ORDERS =
      "CREATE MATERIALIZED TABLE high_value_orders AS SELECT order_id, price FROM"
          + " examples.marketplace.orders WHERE price > 50";

  FakeWorld world = new FakeWorld();
  ChangePlanner planner = new ChangePlanner(world.planner, world.kafka, world.registry);
  ObjectName name = new ObjectName("c", "d", "high_value_orders");

  ChangePlanner.Current provisioned(UUID id) {
    world.converge(id);
    return ChangePlanner.Current.of(world.store.rows.get(id).spec.definition(), world.status(id));
  }

  ChangePlan plan(UUID id, String sql) {
    return planner.plan(name, name.name(), Optional.of(provisioned(id)), FakeWorld.definition(sql));
  }

  @Test
  void shouldAskTheTopicAndTheSubjectsOfAChangeWhileFlinkValidatesItsQuery() {
    UUID id = world.create(ORDERS);
    ChangePlanner.Current current = provisioned(id);
    List<String> asked = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch askedBoth = new CountDownLatch(2);
    Topics topics = answering(Topics.class, world.kafka, "hasRecords", asked, askedBoth, null);
    SchemaRegistry registry =
        answering(SchemaRegistry.class, world.registry, "latest", asked, askedBoth, null);
    // Flink answers the query's schema only once Kafka and the registry were asked (or 5 s later).
    FlinkSql flink = answering(FlinkSql.class, world.flink, "inferSchema", asked, null, askedBoth);
    ChangePlanner beside =
        new ChangePlanner(new QueryPlanner(flink, FakeWorld.CATALOG), topics, registry);

    ChangePlan plan =
        ReadOnce.within(
            () ->
                beside.plan(
                    name,
                    name.name(),
                    Optional.of(current),
                    FakeWorld.definition(ORDERS.replace("> 50", "> 90"))));

    assertThat(plan.action()).isEqualTo(ChangePlan.Action.EVOLVE);
    assertThat(asked.subList(0, 3))
        .as("asked before Flink answered")
        .containsExactlyInAnyOrder("hasRecords", "latest", "inferSchema answered");
    assertThat(asked.indexOf("inferSchema answered")).isEqualTo(2);
    assertThat(asked).as("each asked once").containsOnlyOnce("hasRecords", "latest");
  }

  /**
   * {@code fake} as {@code port}, recording each call of {@code method} in {@code asked} (counting
   * {@code counted} down), and answering it only once {@code awaited} is down.
   */
  private static <T> T answering(
      Class<T> port,
      T fake,
      String method,
      List<String> asked,
      CountDownLatch counted,
      CountDownLatch awaited) {
    return port.cast(
        Proxy.newProxyInstance(
            port.getClassLoader(),
            new Class<?>[] {port},
            (proxy, m, args) -> {
              if (m.getName().equals(method) && awaited != null) {
                awaited.await(5, TimeUnit.SECONDS);
              }
              try {
                return m.invoke(fake, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              } finally {
                if (m.getName().equals(method)) {
                  asked.add(awaited == null ? method : method + " answered");
                  if (counted != null) {
                    counted.countDown();
                  }
                }
              }
            }));
  }

  @Test
  void shouldPlanANewQueryAsAnEvolutionThatContinuesItsSources() {
    UUID id = world.create(ORDERS);

    ChangePlan plan = plan(id, ORDERS.replace("> 50", "> 90"));

    assertThat(plan.action()).isEqualTo(ChangePlan.Action.EVOLVE);
    assertThat(plan.jobRestarts()).isTrue();
    assertThat(plan.stateDiscarded()).isTrue();
    assertThat(plan.rejected()).isFalse();
    assertThat(plan.sourceStarts())
        .singleElement()
        .satisfies(s -> assertThat(s.from()).startsWith("where the previous job stopped"));
  }

  @Test
  void shouldRefuseAnEvolutionFromCommittedOffsetsUnlessTheTableAcceptsThem() {
    UUID id = world.create(ORDERS);
    ChangePlanner.Current current = provisioned(id);
    world.flink.savepointsReadable = false;
    ChangePlanner remote =
        new ChangePlanner(
            world.planner, world.kafka, world.registry, world.flink, "s3://bucket/savepoints");

    ChangePlan plan =
        remote.plan(
            name,
            name.name(),
            Optional.of(current),
            FakeWorld.definition(ORDERS.replace("> 50", "> 90")));

    assertThat(plan.rejected()).isTrue();
    assertThat(plan.rejections())
        .singleElement(STRING)
        .contains("cannot read the savepoints at s3://bucket/savepoints")
        .contains("up to one checkpoint interval")
        .contains("'resume.offsets' = 'exact-or-committed'");
    assertThat(plan.sourceStarts())
        .singleElement()
        .satisfies(s -> assertThat(s.from()).startsWith("the offsets the previous job last"));

    ChangePlan accepted =
        remote.plan(
            name,
            name.name(),
            Optional.of(current),
            FakeWorld.definition(
                ORDERS
                    .replace("> 50", "> 90")
                    .replace(
                        " AS SELECT",
                        " WITH ('resume.offsets' = 'exact-or-committed') AS SELECT")));
    assertThat(accepted.rejected()).isFalse();
    assertThat(accepted.changes())
        .contains(new ChangePlan.ValueChange("resume.offsets", "exact", "exact-or-committed"));
    assertThat(accepted.warnings())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.code()).isEqualTo(ChangePlan.Warning.OFFSETS_FROM_COMMITTED);
              assertThat(w.message())
                  .contains("s3://bucket/savepoints")
                  .contains("up to one checkpoint interval");
            });

    world.flink.savepointsReadable = true; // asked per plan: the store answers again
    ChangePlan readable =
        remote.plan(
            name,
            name.name(),
            Optional.of(current),
            FakeWorld.definition(ORDERS.replace("> 50", "> 90")));
    assertThat(readable.rejected()).isFalse();
    assertThat(readable.warnings()).isEmpty();
    assertThat(readable.sourceStarts().get(0).from()).startsWith("where the previous job stopped");
  }

  @Test
  void shouldKeepTheJobForTopicOptionsAndShowTheConfigChange() {
    UUID id = world.create(ORDERS);

    ChangePlan plan =
        plan(id, ORDERS.replace(" AS SELECT", " WITH ('kafka.retention.time' = '1 d') AS SELECT"));

    assertThat(plan.action()).isEqualTo(ChangePlan.Action.CHANGE);
    assertThat(plan.jobRestarts()).isFalse();
    assertThat(plan.changes())
        .contains(new ChangePlan.ValueChange("topic retention.ms", "(broker default)", "86400000"));
  }

  @Test
  void shouldRejectASchemaTheRegistryRefusesAndAKeyChangeOnATopicWithRecords() {
    UUID id = world.create(ORDERS);
    ChangePlanner.Current current = provisioned(id);
    world.registry.refuseNewSchemas = true;
    world.kafka.filled.add("high_value_orders");
    world.flink.schema = List.of(new FlinkSql.Column("order_id", "STRING", true));

    ChangePlan dropColumn =
        planner.plan(
            name,
            name.name(),
            Optional.of(current),
            FakeWorld.definition(ORDERS.replace("order_id, price", "order_id")));
    ChangePlan keyed =
        planner.plan(
            name,
            name.name(),
            Optional.of(current),
            FakeWorld.definition(
                ORDERS.replace(" AS SELECT", " DISTRIBUTED BY (order_id) AS SELECT")));

    assertThat(dropColumn.rejected()).isTrue();
    assertThat(dropColumn.columns())
        .contains(new ChangePlan.ColumnChange("price", "removed", "DOUBLE", null));
    assertThat(dropColumn.subjects()).anySatisfy(s -> assertThat(s.compatible()).isFalse());
    assertThat(keyed.rejections())
        .anySatisfy(r -> assertThat(r).contains("key", "DROP and CREATE"));
  }

  @Test
  void shouldPlanAFullTableAndRefuseWhatCannotRun() {
    UUID id = world.create(ORDERS);
    MaterializedTableDefinition hourly =
        FakeWorld.definition(
            ORDERS.replace(" AS SELECT", " FRESHNESS = INTERVAL '2' HOUR AS SELECT"));
    MaterializedTableDefinition range =
        FakeWorld.definition(
            ORDERS.replace(" AS SELECT", " DISTRIBUTED BY RANGE(order_id) AS SELECT"));

    // AUTO at 2 hours is FULL, which needs a key: refused without one, as a new table and as a
    // change; with one it is planned (no transaction stays open for a freshness interval, so the
    // continuous limit does not apply).
    assertThatThrownBy(() -> planner.plan(name, name.name(), Optional.empty(), hourly))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("needs a key");
    String keyed =
        ORDERS.replace(
            "high_value_orders AS SELECT",
            "high_value_orders (order_id STRING, price DOUBLE, PRIMARY KEY (order_id) NOT ENFORCED)"
                + " FRESHNESS = INTERVAL '2' HOUR AS SELECT");
    assertThat(
            planner.plan(name, name.name(), Optional.empty(), FakeWorld.definition(keyed)).action())
        .isEqualTo(ChangePlan.Action.CREATE);
    assertThatThrownBy(
            () ->
                plan(id, ORDERS.replace(" AS SELECT", " FRESHNESS = INTERVAL '2' HOUR AS SELECT")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("FULL");
    assertThatThrownBy(() -> planner.plan(name, name.name(), Optional.empty(), range))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("RANGE");
  }

  @Test
  void shouldPlanAnIdenticalDefinitionAsUnchanged() {
    UUID id = world.create(ORDERS);

    assertThat(plan(id, ORDERS).action()).isEqualTo(ChangePlan.Action.UNCHANGED);
  }

  @Test
  void shouldRefuseAFreshnessThatCannotFitInTheBrokersTransactionTimeout() {
    MaterializedTableDefinition hourly =
        FakeWorld.definition(
            ORDERS.replace(
                " AS SELECT",
                " FRESHNESS = INTERVAL '1' HOUR REFRESH_MODE = CONTINUOUS AS SELECT"));

    assertThatThrownBy(() -> planner.plan(name, name.name(), Optional.empty(), hourly))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("3600000 ms")
        .hasMessageContaining("transaction.max.timeout.ms (900000 ms)");
    world.kafka.transactionMaxTimeout = Duration.ofHours(2);
    assertThat(planner.plan(name, name.name(), Optional.empty(), hourly).action())
        .isEqualTo(ChangePlan.Action.CREATE);
  }
}
