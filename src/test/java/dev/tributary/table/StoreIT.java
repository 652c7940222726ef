package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.TributaryIT;
import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.notify.WebhookDispatcher;
import dev.tributary.reconcile.JdbcReconcileStore;
import dev.tributary.reconcile.ReconcileStore;
import dev.tributary.reconcile.TableSnapshot;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.system.Json;
import java.sql.Array;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.quartz.Scheduler;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.ObjectOptimisticLockingFailureException;
import org.springframework.test.context.TestPropertySource;

/** The Flyway schema, the JPA mapping and the Quartz store on the real PostgreSQL. */
// The reconciler would take up the rows written here at once (they are due); with it off, the
// stored defaults are read as written. Same properties as ReplicasIT: one cached context.
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class StoreIT {

  @Autowired CatalogService catalogs;
  @Autowired MaterializedTableRepository tables;
  @Autowired MaterializedTableVersionRepository versions;
  @Autowired TableEventRepository events;
  @Autowired Scheduler scheduler;
  @Autowired JdbcTemplate jdbc;
  @Autowired JdbcReconcileStore reconcileStore;
  @Autowired WebhookDispatcher webhooks;

  /** A valid stored spec: other tests read every table of the shared store. */
  static String spec(String query) {
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable) Parser.parse("CREATE MATERIALIZED TABLE t AS " + query);
    return Json.write(TableSpec.of(create.definition()));
  }

  @Test
  void shouldStoreATableWithItsSpecStatusVersionsAndEvents() {
    CatalogDatabase db = catalogs.ensureDatabase("store_it", "db_" + UUID.randomUUID());
    MaterializedTable table =
        new MaterializedTable(
            UUID.randomUUID(),
            db,
            "orders_by_customer",
            "store-it-" + db.getName(),
            spec("SELECT 1"),
            "CREATE ...");
    tables.saveAndFlush(table);
    versions.save(new MaterializedTableVersion(table));
    events.save(new TableEvent(table.getId(), TableEvent.Type.NORMAL, "Accepted", "Stored"));

    MaterializedTable read =
        tables
            .findTable(db.getCatalog().getName(), db.getName(), "orders_by_customer")
            .orElseThrow();

    assertThat(read.getPhase()).isEqualTo(Phase.PENDING);
    assertThat(read.getGeneration()).isEqualTo(1);
    assertThat(read.getObservedGeneration()).isZero();
    assertThat(read.qualifiedName()).isEqualTo(db.qualifiedName() + ".orders_by_customer");
    assertThat(
            jdbc.queryForObject(
                "SELECT spec -> 'definition' ->> 'query' FROM materialized_table WHERE id = ?",
                String.class,
                table.getId()))
        .isEqualTo("SELECT 1");
    assertThat(versions.findByKeyTableIdOrderByKeyVersion(table.getId()))
        .singleElement()
        .satisfies(v -> assertThat(v.getQualifiedName()).isEqualTo(read.qualifiedName()));
    assertThat(events.findByTableIdOrderById(table.getId()))
        .extracting(TableEvent::getReason)
        .containsExactly("Accepted");
  }

  @Test
  void shouldRejectAWriteBasedOnAStaleResourceVersion() {
    CatalogDatabase db = catalogs.ensureDatabase("store_it", "db_" + UUID.randomUUID());
    UUID id = UUID.randomUUID();
    tables.saveAndFlush(
        new MaterializedTable(id, db, "t", "store-it-" + id, spec("SELECT 1"), "CREATE ..."));
    MaterializedTable first = tables.findById(id).orElseThrow();
    MaterializedTable stale = tables.findById(id).orElseThrow();

    first.respecify(spec("SELECT 2"), "CREATE ... v2");
    tables.saveAndFlush(first);
    stale.respecify(spec("SELECT 3"), "CREATE ... v3");

    assertThatThrownBy(() -> tables.saveAndFlush(stale))
        .isInstanceOf(ObjectOptimisticLockingFailureException.class);
    MaterializedTable stored = tables.findById(id).orElseThrow();
    assertThat(stored.getGeneration()).isEqualTo(2);
    assertThat(stored.getDefinition()).isEqualTo("CREATE ... v2");
  }

  @Test
  void shouldRefuseAPhaseOutsideTheLifecycle() {
    CatalogDatabase db = catalogs.ensureDatabase("store_it", "db_" + UUID.randomUUID());
    UUID id = UUID.randomUUID();
    tables.saveAndFlush(
        new MaterializedTable(id, db, "t", "store-it-" + id, spec("SELECT 1"), "CREATE ..."));

    assertThatThrownBy(
            () -> jdbc.update("UPDATE materialized_table SET phase = 'SLEEPING' WHERE id = ?", id))
        .hasMessageContaining("materialized_table_phase");
  }

  @Test
  void shouldRunQuartzClusteredOnTheJdbcStoreThatFlywayCreated() throws Exception {
    assertThat(scheduler.getMetaData().isJobStoreClustered()).isTrue();
    assertThat(scheduler.getMetaData().isJobStoreSupportsPersistence()).isTrue();
    assertThat(jdbc.queryForObject("SELECT count(*) FROM qrtz_scheduler_state", Integer.class))
        .isPositive();
  }

  @Test
  void shouldLoadAndReleaseABatchInOneStatementEachWithTheRulesOfOneByOne() {
    CatalogDatabase db = catalogs.ensureDatabase("store_it", "db_" + UUID.randomUUID());
    List<UUID> ids = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      MaterializedTable table =
          new MaterializedTable(
              UUID.randomUUID(),
              db,
              name,
              "store-it-" + db.getName() + "-" + name,
              spec("SELECT 1"),
              "CREATE ...");
      tables.saveAndFlush(table);
      versions.save(new MaterializedTableVersion(table));
      ids.add(table.getId());
    }
    List<UUID> tokens = new ArrayList<>();
    for (UUID id : ids) {
      UUID token = UUID.randomUUID();
      tokens.add(token);
      jdbc.update(
          "UPDATE materialized_table SET lease_owner = 'store-it', claim_token = ?,"
              + " lease_expires_at = now() + interval '1 minute' WHERE id = ?",
          token,
          id);
    }

    Map<UUID, TableSnapshot> loaded =
        reconcileStore.loadAll(List.of(ids.get(0), ids.get(1), ids.get(2), UUID.randomUUID()));

    assertThat(loaded).containsOnlyKeys(ids);
    assertThat(loaded.get(ids.get(1)).name().name()).isEqualTo("b");
    assertThat(loaded.get(ids.get(1)).definitionVersion()).isEqualTo(1);

    // b's spec changes while its pass runs; c's claim went to another replica.
    jdbc.update(
        "UPDATE materialized_table SET generation = generation + 1 WHERE id = ?", ids.get(1));
    reconcileStore.releaseAll(
        List.of(
            new ReconcileStore.Release(ids.get(0), tokens.get(0), 1, Duration.ofHours(1), 2),
            new ReconcileStore.Release(ids.get(1), tokens.get(1), 1, Duration.ofHours(1), 0),
            new ReconcileStore.Release(ids.get(2), UUID.randomUUID(), 1, Duration.ZERO, 0)));

    Map<String, Object> a = row(ids.get(0));
    assertThat(a.get("claim_token")).isNull();
    assertThat(a.get("attempt")).isEqualTo(2);
    assertThat((Boolean) a.get("later")).as("due in an hour").isTrue();
    Map<String, Object> b = row(ids.get(1));
    assertThat(b.get("claim_token")).isNull();
    assertThat((Boolean) b.get("due")).as("a newer generation is due at once").isTrue();
    assertThat(row(ids.get(2)).get("claim_token"))
        .as("only the holder of the claim releases it")
        .isEqualTo(tokens.get(2));
  }

  @Test
  void shouldPutATableMadeDueAheadOfEveryRowThatIsDueAlready() {
    CatalogDatabase db = catalogs.ensureDatabase("store_it", "db_" + UUID.randomUUID());
    Map<String, UUID> ids = new HashMap<>();
    for (String name : List.of("backlog", "waiting", "settled")) {
      MaterializedTable table =
          new MaterializedTable(
              UUID.randomUUID(),
              db,
              name,
              "store-it-" + db.getName() + "-" + name,
              spec("SELECT 1"),
              "CREATE ...");
      tables.saveAndFlush(table);
      ids.put(name, table.getId());
    }
    jdbc.update(
        "UPDATE materialized_table SET next_attempt_at = now() - interval '1 hour' WHERE id = ?",
        ids.get("backlog"));
    jdbc.update(
        "UPDATE materialized_table SET next_attempt_at = now() - interval '1 minute' WHERE id = ?",
        ids.get("waiting"));
    jdbc.update(
        "UPDATE materialized_table SET next_attempt_at = '9999-12-31' WHERE id = ?",
        ids.get("settled"));

    reconcileStore.markDue(List.of(ids.get("waiting"), ids.get("settled")));

    Timestamp backlog = due(ids.get("backlog"));
    assertThat(due(ids.get("waiting"))).as("due already, now ahead").isBefore(backlog);
    assertThat(due(ids.get("settled"))).as("settled, now ahead").isBefore(backlog);
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM materialized_table WHERE next_attempt_at <= now()"
                    + " AND next_attempt_at < ? AND id <> ALL (?)",
                Long.class,
                due(ids.get("waiting")),
                jdbc.execute(
                    (ConnectionCallback<Array>)
                        c ->
                            c.createArrayOf(
                                "uuid", new Object[] {ids.get("waiting"), ids.get("settled")}))))
        .as("no due row of any test is ahead of them")
        .isZero();
  }

  private Timestamp due(UUID id) {
    return jdbc.queryForObject(
        "SELECT next_attempt_at FROM materialized_table WHERE id = ?", Timestamp.class, id);
  }

  private Map<String, Object> row(UUID id) {
    return jdbc.queryForMap(
        "SELECT claim_token, attempt, next_attempt_at <= now() AS due,"
            + " next_attempt_at > now() + interval '50 minutes' AS later"
            + " FROM materialized_table WHERE id = ?",
        id);
  }

  @Test
  void shouldKeepOnlyTheNewestEventsOfEachTableAndNoneTooOld() {
    UUID table = UUID.randomUUID();
    for (int i = 0; i < 5; i++) {
      reconcileStore.event(table, "NORMAL", "Step", "event " + i);
    }
    jdbc.update(
        "INSERT INTO table_event (table_id, at, type, reason, message)"
            + " VALUES (?, now() - interval '40 days', 'NORMAL', 'Old', 'old')",
        UUID.randomUUID());

    int gone = reconcileStore.pruneEvents(Duration.ofDays(30), 2);

    assertThat(gone).isGreaterThanOrEqualTo(4);
    assertThat(
            jdbc.queryForList(
                "SELECT message FROM table_event WHERE table_id = ? ORDER BY id",
                String.class,
                table))
        .containsExactly("event 3", "event 4");
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM table_event WHERE reason = 'Old'", Integer.class))
        .isZero();
  }

  @Test
  void shouldKeepADeliveryLogEntryAsLongAsItsEvent() {
    Long database =
        jdbc.queryForObject(
            "SELECT d.id FROM catalog_database d JOIN catalog c ON c.id = d.catalog_id"
                + " WHERE c.name = 'examples' AND d.name = 'marketplace'",
            Long.class);
    UUID webhook = UUID.randomUUID();
    jdbc.update(
        "INSERT INTO webhook (id, database_id, url, events, secret, created_by)"
            + " VALUES (?, ?, 'http://127.0.0.1:9/x', ARRAY['*'], 'sealed', 'test')",
        webhook,
        database);
    Long kept =
        jdbc.queryForObject(
            "INSERT INTO table_event (table_id, at, type, reason, message)"
                + " VALUES (?, now(), 'NORMAL', 'Kept', 'kept') RETURNING id",
            Long.class,
            UUID.randomUUID());
    long gone = kept + 1_000_000_000L; // no event has this id
    for (Object[] row :
        List.of(
            new Object[] {kept, "DELIVERED"},
            new Object[] {gone, "DELIVERED"},
            new Object[] {gone + 1, "FAILED"},
            new Object[] {gone + 2, "PENDING"})) {
      jdbc.update(
          // Not due for a day, so that the running dispatcher leaves the pending one alone.
          "INSERT INTO webhook_delivery (webhook_id, event_id, state, next_attempt_at)"
              + " VALUES (?, ?, ?, now() + interval '1 day')",
          webhook,
          row[0],
          row[1]);
    }

    assertThat(webhooks.pruneDeliveries()).isGreaterThanOrEqualTo(2);

    assertThat(
            jdbc.queryForList(
                "SELECT state FROM webhook_delivery WHERE webhook_id = ? ORDER BY event_id",
                String.class,
                webhook))
        .as("the delivered one whose event is kept, and the pending one its next try ends")
        .containsExactly("DELIVERED", "PENDING");
    jdbc.update("DELETE FROM webhook WHERE id = ?", webhook);
  }
}
