package dev.tributary.table;

import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.Statement;
import dev.tributary.system.Json;
import java.util.List;

/**
 * The desired state of a row of {@code materialized_table}, as stored in its {@code spec}: a
 * materialized table (its definition), a pipeline table (its CREATE TABLE ... FLOW statement, and
 * as {@code definition} what its topic holds: columns and table options, the first flow's query),
 * or a flow of a pipeline table (its CREATE FLOW statement as the only element of {@code flows},
 * and as {@code definition} the job that writes its rows into the table's topic); and whether it
 * should run. Pipeline tables stored before flows ran have no definition, and flows in the list.
 */
public record TableSpec(
    Kind kind,
    MaterializedTableDefinition definition,
    Statement.CreatePipelineTable pipeline,
    List<Statement.CreateFlow> flows,
    boolean stopped,
    long fullRefresh) {

  /** The spec a row stores. */
  public static TableSpec of(MaterializedTable table) {
    return Json.read(table.getSpec(), TableSpec.class);
  }

  /**
   * Materialized table (Confluent/Flink), pipeline table (CREATE TABLE ... FLOW) or one of its
   * flows.
   */
  public enum Kind {
    MATERIALIZED_TABLE,
    PIPELINE_TABLE,
    FLOW
  }

  public TableSpec {
    flows = flows == null ? List.of() : List.copyOf(flows);
  }

  /**
   * {@code fullRefresh}: the number of full refreshes asked of a pipeline table and its flows
   * (REFRESH STREAMING TABLE ... FULL): each empties the topic and starts every flow again from
   * nothing.
   */
  public TableSpec(
      Kind kind,
      MaterializedTableDefinition definition,
      Statement.CreatePipelineTable pipeline,
      List<Statement.CreateFlow> flows,
      boolean stopped) {
    this(kind, definition, pipeline, flows, stopped, 0);
  }

  public TableSpec withFullRefresh(long number) {
    return new TableSpec(kind, definition, pipeline, flows, stopped, number);
  }

  public static TableSpec of(MaterializedTableDefinition definition) {
    return new TableSpec(Kind.MATERIALIZED_TABLE, definition, null, List.of(), false);
  }

  /** A pipeline table: what its topic holds, and the statement that created it. */
  public static TableSpec of(
      Statement.CreatePipelineTable pipeline, MaterializedTableDefinition table) {
    return new TableSpec(Kind.PIPELINE_TABLE, table, pipeline, List.of(), false);
  }

  /** A flow: its statement, and its job's definition. */
  public static TableSpec flow(Statement.CreateFlow flow, MaterializedTableDefinition job) {
    return new TableSpec(Kind.FLOW, job, null, List.of(flow), false);
  }

  /** The statement of a flow. */
  public Statement.CreateFlow flowStatement() {
    return kind == Kind.FLOW ? flows.get(0) : null;
  }

  public TableSpec withDefinition(MaterializedTableDefinition newDefinition) {
    return new TableSpec(kind, newDefinition, pipeline, flows, stopped, fullRefresh);
  }

  public TableSpec withStopped(boolean newStopped) {
    return new TableSpec(kind, definition, pipeline, flows, newStopped, fullRefresh);
  }
}
