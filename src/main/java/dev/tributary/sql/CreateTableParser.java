package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CREATE TABLE: a pipeline table when a FLOW clause follows, a Flink source table (columns plus
 * connector options in WITH) otherwise.
 */
final class CreateTableParser {

  private final Cursor in;
  private final TableParts parts;

  CreateTableParser(Cursor in, TableParts parts) {
    this.in = in;
    this.parts = parts;
  }

  /**
   * CREATE [OR REFRESH] STREAMING TABLE name [(schema)] [clauses] [AS query]: Databricks' streaming
   * table, a pipeline table whose flow (if any) is its query, or that is fed by CREATE FLOW.
   */
  Statement createStreamingTable() {
    return createTable(true);
  }

  Statement createTable() {
    return createTable(false);
  }

  private Statement createTable(boolean streaming) {
    Token start = in.previous();
    boolean ifNotExists = in.acceptWords("IF", "NOT", "EXISTS");
    ObjectName name = in.objectName("table name");
    TableSchema schema = in.atSymbol("(") ? parts.schema(false) : null;
    List<String> partitionedBy = List.of();
    List<String> clusterBy = List.of();
    String location = null;
    String comment = null;
    Map<String, String> properties = Map.of();
    Statement.RowFilter rowFilter = null;
    Map<String, String> options = null;
    Token pipelineOnly = null;
    Set<String> seen = new HashSet<>();
    while (!in.atEnd() && !in.atWord("FLOW") && !(streaming && in.atWord("AS"))) {
      Token clause = in.peek();
      String clauseName;
      if (in.acceptWords("PARTITIONED", "BY")) {
        clauseName = "PARTITIONED BY";
        partitionedBy = in.identifierList("partition column");
      } else if (in.acceptWords("CLUSTER", "BY")) {
        clauseName = "CLUSTER BY";
        clusterBy = in.identifierList("clustering column");
        pipelineOnly = clause;
      } else if (in.acceptWord("LOCATION")) {
        clauseName = "LOCATION";
        location = in.string("location");
        pipelineOnly = clause;
      } else if (in.acceptWord("COMMENT")) {
        clauseName = "COMMENT";
        comment = in.comment();
      } else if (in.acceptWord("TBLPROPERTIES")) {
        clauseName = "TBLPROPERTIES";
        properties = parts.options();
        pipelineOnly = clause;
      } else if (in.acceptWords("WITH", "ROW", "FILTER")) {
        clauseName = "WITH ROW FILTER";
        ObjectName function = in.objectName("row filter function");
        in.expectWord("ON");
        rowFilter = new Statement.RowFilter(function, in.identifierList("column name"));
        pipelineOnly = clause;
      } else if (in.acceptWord("WITH")) {
        clauseName = "WITH";
        options = parts.options();
      } else {
        throw in.expected(
            "PARTITIONED BY, CLUSTER BY, LOCATION, COMMENT, TBLPROPERTIES, WITH, FLOW or the end of the statement");
      }
      if (!seen.add(clauseName)) {
        throw in.error(ErrorCode.INVALID_DEFINITION, clauseName + " is given twice", clause, null);
      }
    }
    if (!partitionedBy.isEmpty() && !clusterBy.isEmpty()) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "PARTITIONED BY and CLUSTER BY cannot be combined",
          start,
          null);
    }
    boolean query = streaming && in.acceptWord("AS");
    if (query || streaming || in.acceptWord("FLOW")) {
      if (options != null) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "A pipeline table takes TBLPROPERTIES, not WITH options",
            start,
            "TBLPROPERTIES");
      }
      if (ifNotExists) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "IF NOT EXISTS is not supported for pipeline tables",
            start,
            null);
      }
      Statement.Flow flow =
          query
              ? new Statement.Flow(null, false, true, FlowParser.flowQuery(in))
              : streaming && !in.acceptWord("FLOW") ? null : flow();
      return new Statement.CreatePipelineTable(
          name, schema, partitionedBy, clusterBy, location, comment, properties, rowFilter, flow);
    }
    return sourceTable(
        start, name, ifNotExists, schema, comment, options, partitionedBy, pipelineOnly);
  }

  private Statement sourceTable(
      Token start,
      ObjectName name,
      boolean ifNotExists,
      TableSchema schema,
      String comment,
      Map<String, String> options,
      List<String> partitionedBy,
      Token pipelineOnly) {
    if (pipelineOnly != null) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          pipelineOnly.upper() + " is only allowed on a pipeline table (one with a FLOW clause)",
          pipelineOnly,
          "FLOW");
    }
    if (schema == null || schema.columns().isEmpty()) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "A source table needs its columns; or did you mean a pipeline table (... FLOW INSERT BY NAME query)?",
          start,
          "(columns)");
    }
    if (options == null) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "A source table needs connector options: WITH ('connector' = ..., ...); or add a FLOW clause for a pipeline table",
          in.peek(),
          "WITH");
    }
    if (!partitionedBy.isEmpty()) {
      throw in.error(
          ErrorCode.UNSUPPORTED_STATEMENT,
          "PARTITIONED BY is not supported for source tables",
          start,
          null);
    }
    if (!schema.expectations().isEmpty()) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "Expectations (CONSTRAINT ... EXPECT) belong to pipeline tables, not source tables",
          start,
          null);
    }
    return new Statement.CreateSourceTable(name, ifNotExists, schema, comment, options);
  }

  /** FLOW already consumed: [IMPORT CHECKPOINT 'path'] INSERT [ONCE] [BY NAME] query. */
  private Statement.Flow flow() {
    String checkpoint =
        in.acceptWords("IMPORT", "CHECKPOINT") ? in.string("checkpoint path") : null;
    in.expectWord("INSERT");
    boolean once = in.acceptWord("ONCE");
    boolean byName = in.acceptWords("BY", "NAME");
    String query = FlowParser.flowQuery(in);
    return new Statement.Flow(checkpoint, once, byName, query);
  }
}
