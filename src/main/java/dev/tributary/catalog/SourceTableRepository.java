package dev.tributary.catalog;

import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** Source tables of a database. */
public interface SourceTableRepository extends JpaRepository<SourceTable, Long> {
  Optional<SourceTable> findByDatabaseAndName(CatalogDatabase database, String name);

  /** The source table of that name, its database and catalog in the same query. */
  @Query(
      "SELECT s FROM SourceTable s JOIN FETCH s.database d JOIN FETCH d.catalog c"
          + " WHERE c.name = :catalog AND d.name = :database AND s.name = :name")
  Optional<SourceTable> findTable(
      @Param("catalog") String catalog,
      @Param("database") String database,
      @Param("name") String name);

  List<SourceTable> findByDatabaseOrderByName(CatalogDatabase database);

  /**
   * The source tables, of every catalog, whose {@code topic} option names {@code topic}: an index
   * read of the column PostgreSQL derives from the option (V19), not a read of them all.
   */
  @Query(
      value = "SELECT * FROM source_table WHERE topics @> ARRAY[CAST(:topic AS text)]",
      nativeQuery = true)
  List<SourceTable> findReadingTopic(@Param("topic") String topic);
}
