package dev.tributary.catalog;

import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Secrets;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.Json;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Map;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;
import tools.jackson.core.type.TypeReference;

/** A Flink table that materialized tables read from, as the user registered it. */
@Entity
@Table(name = "source_table")
public class SourceTable {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @ManyToOne(fetch = FetchType.EAGER, optional = false)
  @JoinColumn(name = "database_id")
  private CatalogDatabase database;

  @Column(nullable = false)
  private String name;

  @Column(nullable = false)
  private String ddl;

  @JdbcTypeCode(SqlTypes.JSON)
  @Column(name = "table_schema", nullable = false)
  private String schema;

  private String comment;

  @JdbcTypeCode(SqlTypes.JSON)
  @Column(nullable = false)
  private String options;

  @Column(name = "created_at", nullable = false)
  private Instant createdAt;

  @Column(name = "updated_at", nullable = false)
  private Instant updatedAt;

  protected SourceTable() {}

  public SourceTable(CatalogDatabase database, SourceTableDefinition definition, String ddl) {
    this.database = database;
    this.createdAt = Instant.now();
    update(definition, ddl);
  }

  /** Replaces the definition and the statement it was registered with; the name stays. */
  public final void update(SourceTableDefinition definition, String ddl) {
    this.name = definition.name();
    this.ddl = ddl;
    this.schema = Json.write(definition.schema());
    this.comment = definition.comment();
    this.options = Json.write(definition.options());
    this.updatedAt = Instant.now();
  }

  /** The definition as answers show it: secrets masked. */
  public SourceTableDefinition definition() {
    return new SourceTableDefinition(
        name, Json.read(schema, TableSchema.class), comment, Secrets.masked(storedOptions()));
  }

  /** The options as stored: secrets encrypted. */
  Map<String, String> storedOptions() {
    return Json.read(options, new TypeReference<Map<String, String>>() {});
  }

  /** The statement the table was registered with. */
  public String getDdl() {
    return Secrets.redact(ddl); // rows stored before secrets were encrypted are masked too
  }

  /** {@code catalog.database.table}. */
  public String qualifiedName() {
    return database.qualifiedName() + "." + name;
  }

  public ObjectName objectName() {
    return new ObjectName(database.getCatalog().getName(), database.getName(), name);
  }

  public Long getId() {
    return id;
  }

  public CatalogDatabase getDatabase() {
    return database;
  }

  public String getName() {
    return name;
  }

  public Instant getUpdatedAt() {
    return updatedAt;
  }
}
