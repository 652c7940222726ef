package dev.tributary.sql;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a CREATE [OR ALTER] MATERIALIZED TABLE says about the table, apart from its name.
 * {@code schema} is null when the schema is inferred from the query; other absent clauses are null
 * or empty. Options are kept sorted by key. The query is kept verbatim.
 */
public record MaterializedTableDefinition(
    TableSchema schema,
    String comment,
    List<String> partitionedBy,
    Clauses.Distribution distribution,
    Map<String, String> options,
    Clauses.Interval freshness,
    Clauses.RefreshMode refreshMode,
    Clauses.StartMode startMode,
    String query) {

  public MaterializedTableDefinition {
    partitionedBy = List.copyOf(partitionedBy);
    options = Collections.unmodifiableMap(new TreeMap<>(options));
  }

  public MaterializedTableDefinition withSchema(TableSchema newSchema) {
    return new MaterializedTableDefinition(
        newSchema,
        comment,
        partitionedBy,
        distribution,
        options,
        freshness,
        refreshMode,
        startMode,
        query);
  }

  public MaterializedTableDefinition withOptions(Map<String, String> newOptions) {
    return new MaterializedTableDefinition(
        schema,
        comment,
        partitionedBy,
        distribution,
        newOptions,
        freshness,
        refreshMode,
        startMode,
        query);
  }

  public MaterializedTableDefinition withFreshness(Clauses.Interval newFreshness) {
    return new MaterializedTableDefinition(
        schema,
        comment,
        partitionedBy,
        distribution,
        options,
        newFreshness,
        refreshMode,
        startMode,
        query);
  }

  public MaterializedTableDefinition withRefreshMode(Clauses.RefreshMode mode) {
    return new MaterializedTableDefinition(
        schema, comment, partitionedBy, distribution, options, freshness, mode, startMode, query);
  }

  public MaterializedTableDefinition withDistribution(Clauses.Distribution newDistribution) {
    return new MaterializedTableDefinition(
        schema,
        comment,
        partitionedBy,
        newDistribution,
        options,
        freshness,
        refreshMode,
        startMode,
        query);
  }

  public MaterializedTableDefinition withStartMode(Clauses.StartMode mode) {
    return new MaterializedTableDefinition(
        schema, comment, partitionedBy, distribution, options, freshness, refreshMode, mode, query);
  }
}
