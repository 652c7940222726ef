package dev.tributary.table;

import dev.tributary.sql.ObjectName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.domain.Limit;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A table's history, which outlives it: its versions and its events, by table or by name. */
@Service
public class TableHistory {

  private final MaterializedTableService tables;
  private final MaterializedTableVersionRepository versions;
  private final TableEventRepository events;

  TableHistory(
      MaterializedTableService tables,
      MaterializedTableVersionRepository versions,
      TableEventRepository events) {
    this.tables = tables;
    this.versions = versions;
    this.events = events;
  }

  /**
   * The id whose history (versions, events) a name shows: the table's, or, once it is dropped, the
   * last table of that name. History outlives the table.
   */
  @Transactional(readOnly = true)
  public UUID historyOf(ObjectName name) {
    Optional<MaterializedTable> table = tables.find(name);
    if (table.isPresent()) {
      return table.get().getId();
    }
    return versions
        .findFirstByQualifiedNameOrderByCreatedAtDesc(name.toString())
        .map(MaterializedTableVersion::tableId)
        .orElseThrow(() -> MaterializedTableService.notFound(name));
  }

  @Transactional(readOnly = true)
  public List<MaterializedTableVersion> versions(UUID table) {
    return versions.findByKeyTableIdOrderByKeyVersion(table);
  }

  @Transactional(readOnly = true)
  public List<TableEvent> events(UUID table) {
    return events.findByTableIdOrderById(table);
  }

  /** The events after {@code afterId} of these tables (ids of tables or flows), oldest first. */
  @Transactional(readOnly = true)
  public List<TableEvent> eventsAfter(Collection<UUID> ids, long afterId) {
    return ids.isEmpty()
        ? List.of()
        : events.findTop500ByTableIdInAndIdGreaterThanOrderById(ids, afterId);
  }

  /** At most {@code limit} events after {@code afterId} of these tables, oldest first. */
  @Transactional(readOnly = true)
  public List<TableEvent> eventsAfter(Collection<UUID> ids, long afterId, int limit) {
    return ids.isEmpty()
        ? List.of()
        : events.findByTableIdInAndIdGreaterThanOrderById(ids, afterId, Limit.of(limit));
  }

  /** The newest 200 events of these tables, oldest first. */
  @Transactional(readOnly = true)
  public List<TableEvent> latestEvents(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    List<TableEvent> newest = new ArrayList<>(events.findTop200ByTableIdInOrderByIdDesc(ids));
    Collections.reverse(newest);
    return newest;
  }

  @Transactional(readOnly = true)
  public List<MaterializedTableVersion> versions(MaterializedTable table) {
    return versions.findByKeyTableIdOrderByKeyVersion(table.getId());
  }

  @Transactional(readOnly = true)
  public List<TableEvent> events(MaterializedTable table) {
    return events.findByTableIdOrderById(table.getId());
  }
}
