package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

/** Materialized and pipeline tables, and the flows of pipeline tables (rows with a flowOf). */
public interface MaterializedTableRepository extends JpaRepository<MaterializedTable, UUID> {
  Optional<MaterializedTable> findByDatabaseAndNameAndFlowOfIsNull(
      CatalogDatabase database, String name);

  Optional<MaterializedTable> findByTopicNameAndFlowOfIsNull(String topicName);

  List<MaterializedTable> findByDatabaseAndFlowOfIsNullOrderByName(CatalogDatabase database);

  List<MaterializedTable> findByFlowOfIsNull();

  /** The flow of that name in the database. */
  Optional<MaterializedTable> findByDatabaseAndNameAndFlowOfIsNotNull(
      CatalogDatabase database, String name);

  List<MaterializedTable> findByFlowOfOrderByName(UUID table);

  List<MaterializedTable> findByDatabaseAndFlowOfIsNotNullOrderByName(CatalogDatabase database);
}
