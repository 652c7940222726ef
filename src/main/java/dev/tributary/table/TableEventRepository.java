package dev.tributary.table;

import java.util.List;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

/** The per-table event log. */
public interface TableEventRepository extends JpaRepository<TableEvent, Long> {
  List<TableEvent> findByTableIdOrderById(UUID tableId);
}
