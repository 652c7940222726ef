package dev.tributary.table;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import jakarta.persistence.EmbeddedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** One definition a materialized table has had; outlives the table. */
@Entity
@Table(name = "materialized_table_version")
public class MaterializedTableVersion {

  @EmbeddedId private Key key;

  @Column(name = "qualified_name", nullable = false)
  private String qualifiedName;

  @JdbcTypeCode(SqlTypes.JSON)
  @Column(nullable = false)
  private String spec;

  @Column(nullable = false)
  private String definition;

  @Column(name = "created_at", nullable = false)
  private Instant createdAt;

  /**
   * Null for a version applied as asked; ROLLED_BACK or RESTORED_n when the reconciler undid it.
   */
  @Column(insertable = false, updatable = false)
  private String outcome;

  @Column(insertable = false, updatable = false)
  private String failure;

  protected MaterializedTableVersion() {}

  public MaterializedTableVersion(MaterializedTable table) {
    this.key = new Key(table.getId(), table.getGeneration());
    this.qualifiedName = table.qualifiedName();
    this.spec = table.getSpec();
    this.definition = table.getDefinition();
    this.createdAt = Instant.now();
  }

  public UUID tableId() {
    return key.tableId;
  }

  public long version() {
    return key.version;
  }

  public String getOutcome() {
    return outcome;
  }

  public String getFailure() {
    return failure;
  }

  public String getQualifiedName() {
    return qualifiedName;
  }

  public String getSpec() {
    return spec;
  }

  public String getDefinition() {
    return definition;
  }

  public Instant getCreatedAt() {
    return createdAt;
  }

  /** Table id and version number. */
  @Embeddable
  public static class Key implements Serializable {
    @Column(name = "table_id")
    private UUID tableId;

    @Column(name = "version")
    private long version;

    protected Key() {}

    public Key(UUID tableId, long version) {
      this.tableId = tableId;
      this.version = version;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.tableId.equals(tableId) && k.version == version;
    }

    @Override
    public int hashCode() {
      return tableId.hashCode() * 31 + Long.hashCode(version);
    }
  }
}
