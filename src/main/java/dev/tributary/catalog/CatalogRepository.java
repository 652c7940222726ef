package dev.tributary.catalog;

import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;

/** Catalogs by name. */
public interface CatalogRepository extends JpaRepository<Catalog, Long> {
  Optional<Catalog> findByName(String name);
}
