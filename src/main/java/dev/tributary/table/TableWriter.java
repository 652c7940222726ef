package dev.tributary.table;

import dev.tributary.security.AuditLog;
import dev.tributary.system.Json;
import jakarta.persistence.EntityManager;
import java.util.function.Supplier;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The one writer of a table row's desired state: only it bumps generations (through {@link
 * MaterializedTable#respecify} and {@link MaterializedTable#requestDeletion}), records versions and
 * logs events, with their audit entries and the signal that wakes the reconciler. The services of
 * this package decide what to write; they write through it.
 *
 * <p>Versions and events are written once and never changed, so each is inserted and then left out
 * of the persistence context ({@link #append}). Kept in it, a script of n statements would have
 * Hibernate dirty-check every version and event written so far at each of its queries' flushes: n²
 * work (ScriptBench's 500 statements spent most of their time there).
 */
@Component
@Transactional // joins the caller's; the repositories it replaced opened their own
class TableWriter {

  private final MaterializedTableRepository tables;
  private final ApplicationEventPublisher publisher;
  private final AuditLog audit;
  private final EntityManager entities;

  TableWriter(
      MaterializedTableRepository tables,
      ApplicationEventPublisher publisher,
      AuditLog audit,
      EntityManager entities) {
    this.tables = tables;
    this.publisher = publisher;
    this.audit = audit;
    this.entities = entities;
  }

  /** Inserts a row that is never changed, and leaves it out of the persistence context. */
  private void append(Object row) {
    entities.persist(row);
    entities.flush();
    entities.detach(row);
  }

  /** A new row as version 1; {@code taken} is thrown when its name or topic was just taken. */
  void insert(MaterializedTable row, Supplier<? extends RuntimeException> taken) {
    try {
      tables.saveAndFlush(row);
    } catch (DataIntegrityViolationException e) {
      throw taken.get();
    }
    append(new MaterializedTableVersion(row));
  }

  /**
   * A new spec (the next generation), and a new version when the definition changed; returns the
   * definition before, for the event's audit entry.
   */
  String respecify(MaterializedTable table, TableSpec spec, String definition, boolean newVersion) {
    String before = table.getDefinition();
    table.respecify(Json.write(spec), definition);
    tables.saveAndFlush(table);
    if (newVersion) {
      append(new MaterializedTableVersion(table));
    }
    return before;
  }

  /** Marks the row for the reconciler to drop (the next generation). */
  void requestDeletion(MaterializedTable row) {
    row.requestDeletion();
    tables.saveAndFlush(row);
  }

  /** An event of a change that kept the definition (or created it), and its audit entry. */
  void event(MaterializedTable table, TableEvent.Type type, String reason, String message) {
    event(table, type, reason, message, reason.equals("Created") ? null : table.getDefinition());
  }

  /** An event of a change, and its audit entry with the definition before the change. */
  void event(
      MaterializedTable table, TableEvent.Type type, String reason, String message, String before) {
    append(new TableEvent(table.getId(), type, reason, message));
    audit.changed(
        reason,
        table.qualifiedName(),
        before,
        table.isDeletionRequested() ? null : table.getDefinition());
    publisher.publishEvent(new TableChanged(table.getId()));
  }
}
