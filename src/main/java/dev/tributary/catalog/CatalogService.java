package dev.tributary.catalog;

import dev.tributary.security.AuditLog;
import dev.tributary.security.SecretBox;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Secrets;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Catalogs, their databases and the source tables registered in them. */
@Service
public class CatalogService {

  private final CatalogRepository catalogs;
  private final CatalogDatabaseRepository databases;
  private final SourceTableRepository sourceTables;
  private final JdbcTemplate jdbc;
  private final SecretBox secrets;
  private final AuditLog audit;

  CatalogService(
      CatalogRepository catalogs,
      CatalogDatabaseRepository databases,
      SourceTableRepository sourceTables,
      JdbcTemplate jdbc,
      SecretBox secrets,
      AuditLog audit) {
    this.jdbc = jdbc;
    this.secrets = secrets;
    this.audit = audit;
    this.catalogs = catalogs;
    this.databases = databases;
    this.sourceTables = sourceTables;
  }

  /**
   * The database, created (with its catalog) when absent. Two requests that create the same new
   * database at once both get it: the inserts skip a row that a concurrent one made.
   */
  @Transactional
  public CatalogDatabase ensureDatabase(String catalog, String database) {
    Optional<CatalogDatabase> found = databases.findByCatalogNameAndName(catalog, database);
    if (found.isPresent()) {
      return found.get();
    }
    jdbc.update("INSERT INTO catalog (name) VALUES (?) ON CONFLICT (name) DO NOTHING", catalog);
    jdbc.update(
        "INSERT INTO catalog_database (catalog_id, name) SELECT id, ? FROM catalog WHERE name = ?"
            + " ON CONFLICT (catalog_id, name) DO NOTHING",
        database,
        catalog);
    return databases.findByCatalogNameAndName(catalog, database).orElseThrow();
  }

  /**
   * Registers a source table, or replaces the definition of the one with that name. Values of
   * options that name a secret are stored encrypted; the stored statement shows them masked. A
   * masked value given again ({@value Secrets#MASK}) keeps the stored secret. Returns the table.
   */
  @Transactional
  public SourceTable registerSourceTable(
      String catalog, String database, SourceTableDefinition definition) {
    CatalogDatabase db = ensureDatabase(catalog, database);
    ObjectName name = new ObjectName(catalog, database, definition.name());
    Optional<SourceTable> existing = sourceTables.findByDatabaseAndName(db, definition.name());
    Map<String, String> stored = new TreeMap<>();
    for (Map.Entry<String, String> option : definition.options().entrySet()) {
      String key = option.getKey();
      String value = option.getValue();
      if (!Secrets.isSecret(key)) {
        stored.put(key, value);
      } else if (Secrets.MASK.equals(value) && existing.isPresent()) {
        String kept = existing.get().storedOptions().get(key);
        if (kept == null) {
          throw new ApiException(
              ErrorCode.INVALID_OPTION_VALUE,
              "Option '" + key + "' is " + Secrets.MASK + " but " + name + " has no such secret");
        }
        stored.put(key, kept);
      } else {
        stored.put(key, secrets.seal(key, value));
      }
    }
    SourceTableDefinition kept =
        new SourceTableDefinition(
            definition.name(), definition.schema(), definition.comment(), stored);
    String ddl = masked(kept).createStatement(name);
    String before = existing.map(SourceTable::getDdl).orElse(null);
    SourceTable table =
        existing
            .map(
                t -> {
                  t.update(kept, ddl);
                  return t;
                })
            .orElseGet(() -> sourceTables.save(new SourceTable(db, kept, ddl)));
    audit.changed(
        existing.isPresent() ? "source-table.replace" : "source-table.create",
        name.toString(),
        before,
        ddl);
    return table;
  }

  /** The definition with every secret masked, as every answer shows it. */
  static SourceTableDefinition masked(SourceTableDefinition stored) {
    return new SourceTableDefinition(
        stored.name(), stored.schema(), stored.comment(), Secrets.masked(stored.options()));
  }

  /** The definition with its secrets decrypted: only for the statements sent to Flink. */
  public SourceTableDefinition forFlink(SourceTable table) {
    Map<String, String> options = new TreeMap<>();
    table.storedOptions().forEach((k, v) -> options.put(k, secrets.open(v)));
    SourceTableDefinition stored = table.definition();
    return new SourceTableDefinition(stored.name(), stored.schema(), stored.comment(), options);
  }

  /** A source table and the topics it names ({@code topic}, split at ';') or its pattern. */
  public record SourceTopics(ObjectName table, List<String> topics, String pattern) {}

  /** Every source table's topics, in every catalog. */
  @Transactional(readOnly = true)
  public List<SourceTopics> sourceTopics() {
    List<SourceTopics> all = new ArrayList<>();
    for (SourceTable t : sourceTables.findAll()) {
      Map<String, String> options = t.storedOptions();
      all.add(
          new SourceTopics(
              t.objectName(), topicsOf(options.get("topic")), options.get("topic-pattern")));
    }
    return all;
  }

  /**
   * The source tables, in every catalog, whose {@code topic} names this one; what {@link
   * #sourceTopics()} holds for it, read through an index.
   */
  @Transactional(readOnly = true)
  public List<SourceTopics> sourceTopicsReading(String topic) {
    List<SourceTopics> reading = new ArrayList<>();
    for (SourceTable t : sourceTables.findReadingTopic(topic)) {
      Map<String, String> options = t.storedOptions();
      List<String> topics = topicsOf(options.get("topic"));
      if (topics.contains(topic)) { // the index's list, checked by the rule that reads it here
        reading.add(new SourceTopics(t.objectName(), topics, options.get("topic-pattern")));
      }
    }
    return reading;
  }

  /** The topics of a {@code topic} option: one name, or several separated by ';'. */
  public static List<String> topicsOf(String topic) {
    return topic == null
        ? List.of()
        : Arrays.stream(topic.split(";")).map(String::trim).filter(t -> !t.isEmpty()).toList();
  }

  /** Every database of every catalog, with its catalog. */
  @Transactional(readOnly = true)
  public List<CatalogDatabase> allDatabases() {
    return databases.findAll();
  }

  @Transactional(readOnly = true)
  public Optional<CatalogDatabase> findDatabase(String catalog, String database) {
    return databases.findByCatalogNameAndName(catalog, database);
  }

  @Transactional(readOnly = true)
  public Optional<SourceTable> findSourceTable(ObjectName name) {
    return sourceTables.findTable(name.catalog(), name.database(), name.name());
  }

  @Transactional
  public void dropSourceTable(SourceTable table) {
    audit.changed("source-table.drop", table.qualifiedName(), table.getDdl(), null);
    sourceTables.delete(table);
  }

  @Transactional(readOnly = true)
  public List<Catalog> catalogs() {
    return catalogs.findAll(org.springframework.data.domain.Sort.by("name"));
  }

  @Transactional(readOnly = true)
  public List<CatalogDatabase> databases(String catalog) {
    if (catalogs.findByName(catalog).isEmpty()) {
      throw new ApiException(ErrorCode.NOT_FOUND, "Catalog '" + catalog + "' does not exist");
    }
    return databases.findByCatalogNameOrderByName(catalog);
  }

  @Transactional(readOnly = true)
  public List<SourceTable> sourceTables(String catalog, String database) {
    return sourceTables.findByDatabaseOrderByName(database(catalog, database));
  }

  @Transactional(readOnly = true)
  public SourceTable sourceTable(String catalog, String database, String name) {
    return sourceTables
        .findByDatabaseAndName(database(catalog, database), name)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Table '" + catalog + "." + database + "." + name + "' does not exist"));
  }

  /** The database, or a 404 problem naming it. */
  @Transactional(readOnly = true)
  public CatalogDatabase requireDatabase(String catalog, String database) {
    return database(catalog, database);
  }

  private CatalogDatabase database(String catalog, String database) {
    return databases
        .findByCatalogNameAndName(catalog, database)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Database '" + catalog + "." + database + "' does not exist"));
  }
}
