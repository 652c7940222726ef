package dev.tributary.table;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** Something the reconciler did to a table, and why. */
@Entity
@Table(name = "table_event")
public class TableEvent {

  /** Whether the event reports progress or a problem. */
  public enum Type {
    NORMAL,
    WARNING
  }

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @Column(name = "table_id", nullable = false)
  private UUID tableId;

  @Column(nullable = false)
  private Instant at;

  @Enumerated(EnumType.STRING)
  @Column(nullable = false)
  private Type type;

  @Column(nullable = false)
  private String reason;

  @Column(nullable = false)
  private String message;

  protected TableEvent() {}

  public TableEvent(UUID tableId, Type type, String reason, String message) {
    this.tableId = tableId;
    this.at = Instant.now();
    this.type = type;
    this.reason = reason;
    this.message = message;
  }

  public Long getId() {
    return id;
  }

  public UUID getTableId() {
    return tableId;
  }

  public Instant getAt() {
    return at;
  }

  public Type getType() {
    return type;
  }

  public String getReason() {
    return reason;
  }

  public String getMessage() {
    return message;
  }
}
