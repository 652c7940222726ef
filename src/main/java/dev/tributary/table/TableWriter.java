package dev.tributary.table;

import dev.tributary.security.AuditLog;
import dev.tributary.system.Json;
import java.util.function.Supplier;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Component;

/**
 * The one writer of a table row's desired state: only it bumps generations (through {@link
 * MaterializedTable#respecify} and {@link MaterializedTable#requestDeletion}), records versions and
 * logs events, with their audit entries and the signal that wakes the reconciler. The services of
 * this package decide what to write; they write through it.
 */
@Component
class TableWriter {

  private final MaterializedTableRepository tables;
  private final MaterializedTableVersionRepository versions;
  private final TableEventRepository events;
  private final ApplicationEventPublisher publisher;
  private final AuditLog audit;

  TableWriter(
      MaterializedTableRepository tables,
      MaterializedTableVersionRepository versions,
      TableEventRepository events,
      ApplicationEventPublisher publisher,
      AuditLog audit) {
    this.tables = tables;
    this.versions = versions;
    this.events = events;
    this.publisher = publisher;
    this.audit = audit;
  }

  /** A new row as version 1; {@code taken} is thrown when its name or topic was just taken. */
  void insert(MaterializedTable row, Supplier<? extends RuntimeException> taken) {
    try {
      tables.saveAndFlush(row);
    } catch (DataIntegrityViolationException e) {
      throw taken.get();
    }
    versions.save(new MaterializedTableVersion(row));
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
      versions.save(new MaterializedTableVersion(table));
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
    events.save(new TableEvent(table.getId(), type, reason, message));
    audit.changed(
        reason,
        table.qualifiedName(),
        before,
        table.isDeletionRequested() ? null : table.getDefinition());
    publisher.publishEvent(new TableChanged(table.getId()));
  }
}
