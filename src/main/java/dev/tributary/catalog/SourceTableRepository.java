package dev.tributary.catalog;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** Source tables of a database. */
public interface SourceTableRepository extends JpaRepository<SourceTable, Long> {
  Optional<SourceTable> findByDatabaseAndName(CatalogDatabase database, String name);

  List<SourceTable> findByDatabaseOrderByName(CatalogDatabase database);
}
