package dev.tributary.table;

import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;

/** The per-table event log. */
public interface TableEventRepository extends JpaRepository<TableEvent, Long> {
  List<TableEvent> findByTableIdOrderById(UUID tableId);

  /** The events after {@code id} of these tables, oldest first, at most 500. */
  List<TableEvent> findByTableIdInAndIdGreaterThanOrderById(
      Collection<UUID> tableIds, long afterId, Limit limit);

  List<TableEvent> findTop500ByTableIdInAndIdGreaterThanOrderById(
      Collection<UUID> tableIds, long id);

  /** The newest events of these tables, newest first. */
  List<TableEvent> findTop200ByTableIdInOrderByIdDesc(Collection<UUID> tableIds);
}
