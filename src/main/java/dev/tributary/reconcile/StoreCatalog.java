package dev.tributary.reconcile;

import dev.tributary.catalog.CatalogService;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkSql;
import dev.tributary.sql.Column;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Declarations for the tables a query reads: a registered source table as the user defined it, or
 * another materialized table as a Kafka source over its backing topic.
 */
class StoreCatalog implements QueryPlanner.Catalog {

  private final CatalogService catalogs;
  private final MaterializedTableService tables;
  private final ReconcileStore store;
  private final String bootstrapServers;
  private final String registryUrl;

  StoreCatalog(
      CatalogService catalogs,
      MaterializedTableService tables,
      ReconcileStore store,
      String bootstrapServers,
      String registryUrl) {
    this.registryUrl = registryUrl;
    this.catalogs = catalogs;
    this.tables = tables;
    this.store = store;
    this.bootstrapServers = bootstrapServers;
  }

  @Override
  public Optional<Statement.CreateSourceTable> declaration(ObjectName name) {
    var source = catalogs.findSourceTable(name);
    if (source.isPresent()) {
      var d = catalogs.forFlink(source.get());
      return Optional.of(
          new Statement.CreateSourceTable(name, true, d.schema(), d.comment(), d.options()));
    }
    return tables.find(name).flatMap(this::asSource);
  }

  @Override
  public Optional<QueryPlanner.Pending> pending(ObjectName name) {
    return tables
        .find(name)
        .filter(t -> tables.spec(t).kind() == TableSpec.Kind.MATERIALIZED_TABLE)
        .filter(t -> asSource(t).isEmpty())
        .map(t -> new QueryPlanner.Pending(name, tables.spec(t).definition().query()));
  }

  private Optional<Statement.CreateSourceTable> asSource(MaterializedTable table) {
    TableSpec spec = tables.spec(table);
    if (spec.kind() != TableSpec.Kind.MATERIALIZED_TABLE) {
      return Optional.empty();
    }
    MaterializedTableDefinition effective = Defaults.effective(spec.definition());
    TableStatus status =
        store.load(table.getId()).map(TableSnapshot::status).orElse(TableStatus.initial());
    List<Column> columns;
    if (!status.schema().isEmpty()) {
      columns = status.schema().stream().map(StoreCatalog::physical).toList();
    } else if (TableSchema.hasDeclaredTypes(spec.definition().schema())) {
      columns =
          spec.definition().schema().columns().stream()
              .filter(c -> c.kind() == Column.Kind.PHYSICAL)
              .toList();
    } else {
      return Optional.empty(); // Its columns are known once it is provisioned.
    }
    TableSchema declared = effective.schema(); // with the key Flink derives, if not declared
    TableSchema.PrimaryKey key = declared == null ? null : declared.primaryKey();
    // Computed and metadata columns and the watermark are part of the table as others read it.
    List<Column> all = new ArrayList<>(columns);
    TableSchema.Watermark watermark = null;
    if (declared != null) {
      declared.columns().stream().filter(c -> c.kind() != Column.Kind.PHYSICAL).forEach(all::add);
      watermark = declared.watermark();
    }
    String mode = effective.options().get("changelog.mode");
    boolean upsert = "upsert".equals(mode);
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", upsert ? "upsert-kafka" : "kafka");
    options.put("topic", table.getTopicName());
    options.put("properties.bootstrap.servers", bootstrapServers);
    options.put("properties.isolation.level", "read_committed");
    // Read as the job writes: the retract envelope, or the declared format of value and key.
    if ("retract".equals(mode)) {
      options.put("value.format", "debezium-json-confluent");
    } else {
      format(options, "value", effective.options().get("value.format"));
    }
    if (upsert) {
      format(options, "key", effective.options().get("key.format"));
    } else {
      options.put("scan.startup.mode", "earliest-offset");
    }
    TableSchema schema = new TableSchema(all, watermark, upsert ? key : null, List.of());
    return Optional.of(
        new Statement.CreateSourceTable(table.objectName(), true, schema, null, options));
  }

  private void format(Map<String, String> options, String part, String declared) {
    if ("avro-registry".equals(declared)) {
      options.put(part + ".format", "avro-confluent");
      options.put(part + ".avro-confluent.url", registryUrl);
    } else {
      options.put(part + ".format", "raw".equals(declared) ? "raw" : "json-confluent");
    }
  }

  private static Column physical(FlinkSql.Column c) {
    return Column.physical(c.name(), c.type(), !c.nullable(), null);
  }
}
