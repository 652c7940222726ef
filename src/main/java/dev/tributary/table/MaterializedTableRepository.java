package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

/** Materialized tables. */
public interface MaterializedTableRepository extends JpaRepository<MaterializedTable, UUID> {
  Optional<MaterializedTable> findByDatabaseAndName(CatalogDatabase database, String name);

  Optional<MaterializedTable> findByTopicName(String topicName);

  List<MaterializedTable> findByDatabaseOrderByName(CatalogDatabase database);
}
