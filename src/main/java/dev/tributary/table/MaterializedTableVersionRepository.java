package dev.tributary.table;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

/** The version history of materialized tables. */
public interface MaterializedTableVersionRepository
    extends JpaRepository<MaterializedTableVersion, MaterializedTableVersion.Key> {
  List<MaterializedTableVersion> findByKeyTableIdOrderByKeyVersion(UUID tableId);

  /** The newest version stored under a name: how a dropped table's history is found. */
  Optional<MaterializedTableVersion> findFirstByQualifiedNameOrderByCreatedAtDesc(String name);
}
