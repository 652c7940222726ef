package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.sql.ObjectName;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.DynamicUpdate;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A materialized table: the desired state (spec, generation) and the observed state (phase, status,
 * observed generation) side by side, plus the reconciler's retry bookkeeping.
 */
@Entity
@Table(name = "materialized_table")
@DynamicUpdate
public class MaterializedTable {

  @Id private UUID id;

  @ManyToOne(fetch = FetchType.EAGER, optional = false)
  @JoinColumn(name = "database_id")
  private CatalogDatabase database;

  @Column(nullable = false)
  private String name;

  @Column(name = "topic_name", nullable = false, updatable = false)
  private String topicName;

  /** For a flow: the pipeline table it writes into (and whose topic it shares); else null. */
  @Column(name = "flow_of", updatable = false)
  private UUID flowOf;

  @JdbcTypeCode(SqlTypes.JSON)
  @Column(nullable = false)
  private String spec;

  @Column(nullable = false)
  private String definition;

  @Column(nullable = false)
  private long generation;

  // Observed state is the reconciler's: it writes these columns with SQL (ReconcileStore), and the
  // API's entity saves must never overwrite them with a stale copy.
  @Column(name = "observed_generation", nullable = false, updatable = false)
  private long observedGeneration;

  @Enumerated(EnumType.STRING)
  @Column(nullable = false, updatable = false)
  private Phase phase;

  @JdbcTypeCode(SqlTypes.JSON)
  @Column(nullable = false, updatable = false)
  private String status;

  @Column(name = "deletion_requested", nullable = false)
  private boolean deletionRequested;

  @Version
  @Column(name = "resource_version", nullable = false)
  private long resourceVersion;

  @Column(nullable = false)
  private int attempt;

  @Column(name = "next_attempt_at", nullable = false)
  private Instant nextAttemptAt;

  @Column(name = "lease_owner", insertable = false, updatable = false)
  private String leaseOwner;

  @Column(name = "lease_expires_at", insertable = false, updatable = false)
  private Instant leaseExpiresAt;

  @Column(name = "created_at", nullable = false)
  private Instant createdAt;

  @Column(name = "updated_at", nullable = false)
  private Instant updatedAt;

  protected MaterializedTable() {}

  public MaterializedTable(
      UUID id,
      CatalogDatabase database,
      String name,
      String topicName,
      String specJson,
      String definition) {
    this.id = id;
    this.database = database;
    this.name = name;
    this.topicName = topicName;
    this.spec = specJson;
    this.definition = definition;
    this.generation = 1;
    this.observedGeneration = 0;
    this.phase = Phase.PENDING;
    this.status = "{}";
    this.createdAt = Instant.now();
    this.updatedAt = createdAt;
    this.nextAttemptAt = createdAt;
  }

  /** A flow of {@code table}: named {@code name}, writing into the table's topic. */
  public static MaterializedTable flow(
      UUID id, MaterializedTable table, String name, String specJson, String definition) {
    MaterializedTable flow =
        new MaterializedTable(id, table.database, name, table.topicName, specJson, definition);
    flow.flowOf = table.id;
    return flow;
  }

  public UUID getFlowOf() {
    return flowOf;
  }

  /** A new desired state: bumps the generation so the reconciler acts on it. */
  public void respecify(String specJson, String definition) {
    this.spec = specJson;
    this.definition = definition;
    this.generation++;
    this.attempt = 0;
    this.nextAttemptAt = Instant.now();
    this.updatedAt = nextAttemptAt;
  }

  /** DROP: the reconciler cleans up the topic, subjects and job, then removes the row. */
  public void requestDeletion() {
    this.deletionRequested = true;
    this.generation++;
    this.attempt = 0;
    this.nextAttemptAt = Instant.now();
    this.updatedAt = nextAttemptAt;
  }

  public boolean isDeletionRequested() {
    return deletionRequested;
  }

  public UUID getId() {
    return id;
  }

  public CatalogDatabase getDatabase() {
    return database;
  }

  /** The topic this table owns, named when it was created. */
  public String getTopicName() {
    return topicName;
  }

  public String getName() {
    return name;
  }

  public ObjectName objectName() {
    return new ObjectName(database.getCatalog().getName(), database.getName(), name);
  }

  /** {@code catalog.database.table}. */
  public String qualifiedName() {
    return database.qualifiedName() + "." + name;
  }

  public String getSpec() {
    return spec;
  }

  public String getDefinition() {
    return definition;
  }

  public long getGeneration() {
    return generation;
  }

  public long getObservedGeneration() {
    return observedGeneration;
  }

  public Phase getPhase() {
    return phase;
  }

  /** The status as the typed record every reader goes through. */
  public TableStatus status() {
    return TableStatus.parse(status);
  }

  public String getStatus() {
    return status;
  }

  public long getResourceVersion() {
    return resourceVersion;
  }

  public int getAttempt() {
    return attempt;
  }

  public Instant getNextAttemptAt() {
    return nextAttemptAt;
  }

  public String getLeaseOwner() {
    return leaseOwner;
  }

  public Instant getLeaseExpiresAt() {
    return leaseExpiresAt;
  }

  public Instant getCreatedAt() {
    return createdAt;
  }

  public Instant getUpdatedAt() {
    return updatedAt;
  }
}
