package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** Materialized and pipeline tables, and the flows of pipeline tables (rows with a flowOf). */
public interface MaterializedTableRepository extends JpaRepository<MaterializedTable, UUID> {
  /** The table (not a flow) of that name, its database and catalog in the same query. */
  @Query(
      "SELECT t FROM MaterializedTable t JOIN FETCH t.database d JOIN FETCH d.catalog c"
          + " WHERE c.name = :catalog AND d.name = :database AND t.name = :name"
          + " AND t.flowOf IS NULL")
  Optional<MaterializedTable> findTable(
      @Param("catalog") String catalog,
      @Param("database") String database,
      @Param("name") String name);

  Optional<MaterializedTable> findByTopicNameAndFlowOfIsNull(String topicName);

  List<MaterializedTable> findByDatabaseAndFlowOfIsNullOrderByName(CatalogDatabase database);

  /**
   * Up to {@code limit} tables of these databases by qualified name ({@code
   * catalog.database.table}) after {@code after} (null: from the first), compared byte-wise as
   * {@code pageByName} compares names: the status page's list across catalogs, a page read, not
   * every row.
   */
  @Query(
      value =
          "SELECT t.* FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id"
              + " JOIN catalog c ON c.id = d.catalog_id"
              + " WHERE t.flow_of IS NULL AND t.database_id IN (:databases)"
              + " AND (CAST(:after AS text) IS NULL"
              + " OR (c.name || '.' || d.name || '.' || t.name) COLLATE \"C\" > CAST(:after AS text))"
              + " ORDER BY (c.name || '.' || d.name || '.' || t.name) COLLATE \"C\" LIMIT :limit",
      nativeQuery = true)
  List<MaterializedTable> pageByQualifiedName(
      @Param("databases") Collection<Long> databases,
      @Param("after") String after,
      @Param("limit") int limit);

  /** The tables (not flows) of these databases, with their databases, in one query. */
  @Query(
      "SELECT t FROM MaterializedTable t JOIN FETCH t.database d JOIN FETCH d.catalog c"
          + " WHERE t.flowOf IS NULL AND d.id IN :databases")
  List<MaterializedTable> findTablesIn(@Param("databases") Collection<Long> databases);

  /** Every row of these databases, tables and flows, with their databases, in one query. */
  @Query(
      "SELECT t FROM MaterializedTable t JOIN FETCH t.database d JOIN FETCH d.catalog c"
          + " WHERE d.id IN :databases")
  List<MaterializedTable> findRowsIn(@Param("databases") Collection<Long> databases);

  /**
   * A page of the database's tables by name after {@code after} (null: from the first), optionally
   * of one phase: an index-ordered read of {@code limit} rows, whatever the number of tables. Names
   * compare byte-wise ({@code COLLATE "C"}), the order of Java's {@code String.compareTo} for them,
   * which the page tokens carry.
   */
  @Query(
      value =
          "SELECT * FROM materialized_table WHERE database_id = :database AND flow_of IS NULL"
              + " AND (CAST(:phase AS text) IS NULL OR phase = CAST(:phase AS text))"
              + " AND (CAST(:after AS text) IS NULL OR name COLLATE \"C\" > CAST(:after AS text))"
              + " ORDER BY name COLLATE \"C\" LIMIT :limit",
      nativeQuery = true)
  List<MaterializedTable> pageByName(
      @Param("database") long database,
      @Param("phase") String phase,
      @Param("after") String after,
      @Param("limit") int limit);

  /** The flow of that name in the database. */
  Optional<MaterializedTable> findByDatabaseAndNameAndFlowOfIsNotNull(
      CatalogDatabase database, String name);

  List<MaterializedTable> findByFlowOfOrderByName(UUID table);

  List<MaterializedTable> findByDatabaseAndFlowOfIsNotNullOrderByName(CatalogDatabase database);
}
