package dev.tributary.table;

import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The desired state of a table as stored in {@code materialized_table.spec}: its definition (a
 * materialized table's, or a pipeline table's with its flows) and whether it should run.
 */
public record TableSpec(
    Kind kind,
    MaterializedTableDefinition definition,
    Statement.CreatePipelineTable pipeline,
    List<Statement.CreateFlow> flows,
    boolean stopped) {

  /** Materialized table (Confluent/Flink) or pipeline table (CREATE TABLE ... FLOW). */
  public enum Kind {
    MATERIALIZED_TABLE,
    PIPELINE_TABLE
  }

  public TableSpec {
    flows = flows == null ? List.of() : List.copyOf(flows);
  }

  public static TableSpec of(MaterializedTableDefinition definition) {
    return new TableSpec(Kind.MATERIALIZED_TABLE, definition, null, List.of(), false);
  }

  public static TableSpec of(Statement.CreatePipelineTable pipeline) {
    return new TableSpec(Kind.PIPELINE_TABLE, null, pipeline, List.of(), false);
  }

  public TableSpec withDefinition(MaterializedTableDefinition newDefinition) {
    return new TableSpec(kind, newDefinition, pipeline, flows, stopped);
  }

  public TableSpec withStopped(boolean newStopped) {
    return new TableSpec(kind, definition, pipeline, flows, newStopped);
  }

  public TableSpec withFlow(Statement.CreateFlow flow) {
    List<Statement.CreateFlow> all = new ArrayList<>(flows);
    all.add(flow);
    return new TableSpec(kind, definition, pipeline, all, stopped);
  }
}
