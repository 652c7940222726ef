package dev.tributary.catalog;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** Databases of a catalog. */
public interface CatalogDatabaseRepository extends JpaRepository<CatalogDatabase, Long> {
  Optional<CatalogDatabase> findByCatalogNameAndName(String catalog, String name);

  List<CatalogDatabase> findByCatalogNameOrderByName(String catalog);
}
