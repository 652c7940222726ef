package dev.tributary.reconcile;

import dev.tributary.catalog.CatalogService;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.LocalPlanner;
import dev.tributary.port.RefreshSchedules;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.Defaults;
import dev.tributary.system.TributaryProperties;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.RefreshLedger;
import dev.tributary.table.TableChanged;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the reconciler to the ports; the worker runs unless tributary.reconciler.enabled=false. */
@Configuration(proxyBeanMethods = false)
class ReconcileConfiguration {

  /**
   * REFRESH_MODE AUTO's threshold ({@code tributary.refresh.freshness-threshold}): one value per
   * process, as Flink's gateway has one, set before any request is served.
   */
  ReconcileConfiguration(
      @Value("${tributary.refresh.freshness-threshold:30m}") Duration freshnessThreshold) {
    Defaults.useFreshnessThreshold(freshnessThreshold);
  }

  /** Wakes this replica's worker once a change to a table is committed. */
  @Bean
  @ConditionalOnProperty(
      name = "tributary.reconciler.enabled",
      havingValue = "true",
      matchIfMissing = true)
  WakeOnChange wakeOnChange(ReconcileWorker worker) {
    return new WakeOnChange(worker);
  }

  /** Listener for committed table changes. */
  static final class WakeOnChange {
    private final ReconcileWorker worker;

    WakeOnChange(ReconcileWorker worker) {
      this.worker = worker;
    }

    @org.springframework.transaction.event.TransactionalEventListener
    void onChange(TableChanged event) {
      worker.wake();
    }
  }

  /** Where the refresh scheduler delivers its firings. */
  @Bean
  RefreshSchedules.Firings refreshFirings(ReconcileStore store, RefreshLedger ledger) {
    return new ScheduledRefreshes(store, ledger);
  }

  @Bean
  QueryPlanner queryPlanner(
      FlinkSql sql,
      ObjectProvider<LocalPlanner> local,
      CatalogService catalogs,
      MaterializedTableService tables,
      ReconcileStore store,
      TributaryProperties properties) {
    LocalPlanner planner = local.getIfAvailable();
    return new QueryPlanner(
        sql,
        planner == null ? null : planner.sql(),
        new StoreCatalog(
            catalogs,
            tables,
            store,
            properties.kafka().bootstrapServers(),
            properties.schemaRegistry().url().toString()),
        Clock.systemUTC());
  }

  @Bean
  Reconciler reconciler(
      ReconcileStore store,
      Topics topics,
      SchemaRegistry registry,
      FlinkSql sql,
      FlinkJobs jobs,
      QueryPlanner planner,
      RefreshLedger ledger,
      RefreshSchedules schedules,
      TributaryProperties properties,
      @Value("${tributary.reconciler.resync:30s}") Duration resync,
      @Value("${tributary.reconciler.readiness-window:60s}") Duration readinessWindow,
      @Value("${tributary.reconciler.submissions:4}") int submissions) {
    return new Reconciler(
        store,
        topics,
        registry,
        sql,
        jobs,
        planner,
        ledger,
        schedules,
        new Reconciler.Settings(
            properties.kafka().bootstrapServers(),
            properties.flink().savepointDir(),
            resync,
            readinessWindow,
            properties.schemaRegistry().url().toString(),
            submissions),
        Reconciler.Faults.NONE,
        Clock.systemUTC());
  }

  @Bean
  @ConditionalOnProperty(
      name = "tributary.reconciler.enabled",
      havingValue = "true",
      matchIfMissing = true)
  ReconcileWorker reconcileWorker(
      JdbcReconcileStore store,
      Reconciler reconciler,
      FlinkJobs jobs,
      Topics topics,
      @Value("${tributary.reconciler.poll-interval:200ms}") Duration poll,
      @Value("${tributary.reconciler.batch-size:20}") int batch,
      @Value("${tributary.reconciler.lease:15s}") Duration lease,
      @Value("${tributary.reconciler.threads:8}") int threads,
      // Off only in fault tests, to let a lease expire under a pass that is still running.
      @Value("${tributary.reconciler.lease-heartbeat:true}") boolean heartbeat,
      @Value("${tributary.events.retention:30d}") Duration eventRetention,
      @Value("${tributary.events.max-per-table:1000}") int eventsPerTable) {
    String owner =
        System.getenv().getOrDefault("HOSTNAME", "tributary")
            + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    return new ReconcileWorker(
        store,
        reconciler,
        jobs,
        topics,
        new ReconcileWorker.Settings(
            poll,
            batch,
            lease,
            threads,
            Duration.ofSeconds(2),
            heartbeat,
            eventRetention,
            eventsPerTable),
        owner,
        store.metrics());
  }
}
