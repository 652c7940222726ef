package dev.tributary.sql;

import dev.tributary.sql.Statement.AlterAction;
import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The statement language: a hand-written recursive-descent parser over {@link Lexer} tokens. The
 * grammar is the union of the seeds (Confluent and Flink materialized tables, pipeline tables and
 * flows, source tables). AS queries are kept verbatim: the parser only finds where they end.
 */
public final class Parser {

  /** Longest script accepted, in characters. */
  public static final int MAX_SCRIPT_LENGTH = 512 * 1024;

  /**
   * Most statements in one script: a script runs in one database transaction, which must stay short
   * enough not to hold a connection that other requests need.
   */
  public static final int MAX_STATEMENTS = 500;

  private final Cursor in;
  private final TableParts parts;

  /** Where each clause of the latest definition started, to point refusals at. */
  private final Map<String, Token> clauses = new HashMap<>();

  private Parser(Cursor in) {
    this.in = in;
    this.parts = new TableParts(in);
  }

  /** A statement of a script, with its 0-based index and its own text. */
  /** The key of {@link Parsed#positions()} that holds where the statement starts. */
  public static final String STATEMENT = "STATEMENT";

  public record Parsed(
      int index, Statement statement, String text, Source source, Map<String, Integer> positions) {

    public Parsed(int index, Statement statement, String text) {
      this(index, statement, text, null, Map.of());
    }

    /** The same statement as statement {@code newIndex} of a longer script. */
    public Parsed withIndex(int newIndex) {
      return new Parsed(newIndex, statement, text, source, positions);
    }

    /** Line and column (1-based, in its script) where this statement starts. */
    public int[] start() {
      Integer at = positions.get(STATEMENT);
      return source == null || at == null ? new int[] {1, 1} : source.lineAndColumn(at);
    }

    /**
     * Refuses this statement if it asks for something the product cannot carry out, pointing at the
     * clause (see {@link Capabilities}).
     */
    public void requireSupported() {
      requireQuerySyntax();
      Capabilities.refusal(statement)
          .ifPresent(
              r -> {
                Integer at = positions.getOrDefault(r.clause(), positions.get("AS"));
                if (source == null || at == null) {
                  throw new SqlException(r.code(), r.message(), index, 1, 1, null, "");
                }
                throw SqlException.at(r.code(), r.message(), source, at, null).inStatement(index);
              });
    }

    /**
     * Where a 1-based line and column of this statement's AS query lie in its script, as {line,
     * column}; empty when the statement has no query or no source.
     */
    public Optional<int[]> queryPosition(int line, int column) {
      String query = queryOf(statement);
      if (query == null || source == null || line < 1) {
        return Optional.empty();
      }
      int start = source.text().indexOf(query, positions.getOrDefault("AS", 0));
      if (start < 0) {
        return Optional.empty();
      }
      return Optional.of(source.lineAndColumn(start + offsetIn(query, line, column)));
    }

    private void requireQuerySyntax() {
      String query = queryOf(statement);
      if (query == null || query.isBlank()) {
        return;
      }
      QueryAnalysis.syntaxError(query)
          .ifPresent(
              e -> {
                String message = "Syntax error in the query: " + e.message();
                int from = positions.getOrDefault("AS", 0);
                int start = source == null ? -1 : source.text().indexOf(query, from);
                if (start < 0) {
                  throw new SqlException(
                      ErrorCode.SQL_SYNTAX_ERROR, message, index, 1, 1, null, "");
                }
                int offset = start + offsetIn(query, e.line(), e.column());
                throw SqlException.at(ErrorCode.SQL_SYNTAX_ERROR, message, source, offset, null)
                    .inStatement(index);
              });
    }

    /** The character offset of a 1-based line and column within {@code text}. */
    private static int offsetIn(String text, int line, int column) {
      int offset = 0;
      for (int l = 1; l < line && offset < text.length(); l++) {
        int next = text.indexOf('\n', offset);
        if (next < 0) {
          break;
        }
        offset = next + 1;
      }
      return Math.min(text.length(), offset + Math.max(0, column - 1));
    }
  }

  /**
   * The AS query must parse with Flink's own parser: a syntax error is reported here, at its place
   * in the user's text, and nothing is sent to the SQL Gateway.
   */
  private static String queryOf(Statement statement) {
    if (statement instanceof Statement.CreateMaterializedTable create) {
      return create.definition().query();
    }
    if (statement instanceof Statement.Explain explain) {
      return queryOf(explain.statement());
    }
    if (statement instanceof Statement.AlterMaterializedTable alter
        && alter.action() instanceof Statement.Evolve evolve) {
      return evolve.definition().query();
    }
    return null;
  }

  /** Parses a script of statements separated by ';'. Fails on the first bad statement. */
  public static List<Parsed> parseScript(String script) {
    if (script == null || script.isBlank()) {
      throw new SqlException(
          ErrorCode.SQL_SYNTAX_ERROR, "No statement given", 0, 1, 1, "a statement", "\n^");
    }
    if (script.length() > MAX_SCRIPT_LENGTH) {
      throw new SqlException(
          ErrorCode.STATEMENT_TOO_LARGE,
          "The script has "
              + script.length()
              + " characters; at most "
              + MAX_SCRIPT_LENGTH
              + " are accepted",
          -1,
          1,
          1,
          null,
          "");
    }
    Source source = new Source(script);
    try {
      Parser parser = new Parser(new Cursor(source, new Lexer(source).tokenize()));
      return parser.script();
    } catch (SqlException e) {
      // A snippet is a window of the line: it may show a secret without the key that names it.
      throw e.masking(Secrets.valuesIn(script));
    }
  }

  /** Parses exactly one statement (a trailing ';' is allowed). */
  public static Statement parse(String statement) {
    List<Parsed> all = parseScript(statement);
    if (all.size() != 1) {
      throw new SqlException(
          ErrorCode.SQL_SYNTAX_ERROR,
          "Expected one statement but found " + all.size(),
          1,
          1,
          1,
          null,
          "");
    }
    return all.get(0).statement();
  }

  private List<Parsed> script() {
    List<Parsed> statements = new ArrayList<>();
    while (true) {
      while (in.acceptSymbol(";")) {
        // Empty statements between separators are allowed.
      }
      if (in.peek().kind() == Token.Kind.EOF) {
        break;
      }
      int index = statements.size();
      Token first = in.peek();
      if (index >= MAX_STATEMENTS) {
        throw in.error(
            ErrorCode.STATEMENT_TOO_LARGE,
            "A script has at most " + MAX_STATEMENTS + " statements; split it",
            first,
            null);
      }
      try {
        Statement statement = statement();
        if (!in.atEnd()) {
          throw in.expected("';' or the end of the statement");
        }
        Token last = in.previous();
        Map<String, Integer> positions = new HashMap<>();
        positions.put(STATEMENT, first.start());
        clauses.forEach((k, v) -> positions.put(k, v.start()));
        parts.positions.forEach((k, v) -> positions.put(k, v.start()));
        clauses.clear();
        parts.positions.clear();
        statements.add(
            new Parsed(
                index,
                statement,
                in.source().slice(first.start(), last.end()),
                in.source(),
                Map.copyOf(positions)));
      } catch (SqlException e) {
        throw e.inStatement(index);
      }
    }
    if (statements.isEmpty()) {
      throw new SqlException(
          ErrorCode.SQL_SYNTAX_ERROR, "No statement given", 0, 1, 1, "a statement", "\n^");
    }
    return statements;
  }

  private Statement statement() {
    if (in.acceptWord("EXPLAIN")) {
      Token at = in.peek();
      Statement inner = statement();
      boolean change =
          inner instanceof Statement.CreateMaterializedTable
              || inner instanceof Statement.AlterMaterializedTable;
      if (!change) {
        throw in.error(
            ErrorCode.UNSUPPORTED_STATEMENT,
            "EXPLAIN explains a change of a materialized table: EXPLAIN CREATE [OR ALTER]"
                + " MATERIALIZED TABLE ... or EXPLAIN ALTER MATERIALIZED TABLE ...",
            at,
            "CREATE or ALTER");
      }
      return new Statement.Explain(inner);
    }
    if (in.acceptWord("CREATE")) {
      return create();
    }
    if (in.acceptWord("ALTER")) {
      if (in.acceptWord("FLOW")) {
        ObjectName flow = in.objectName("flow name");
        if (in.acceptWord("SUSPEND")) {
          return new Statement.AlterFlow(flow, true);
        }
        if (in.acceptWord("RESUME")) {
          return new Statement.AlterFlow(flow, false);
        }
        throw in.expected("SUSPEND or RESUME");
      }
      if (in.acceptWord("STREAMING") || in.atWord("TABLE")) {
        in.expectWord("TABLE");
        return alterPipelineTable();
      }
      in.expectWords("MATERIALIZED", "TABLE");
      return alter();
    }
    if (in.acceptWord("DROP")) {
      return drop();
    }
    if (in.acceptWord("SHOW")) {
      return show();
    }
    if (in.acceptWord("DESCRIBE") || in.acceptWord("DESC")) {
      return new Statement.Describe(in.objectName("table name"));
    }
    if (in.atWord("SELECT")) {
      return new SelectParser(in).select();
    }
    if (in.acceptWord("REFRESH")) {
      in.acceptWord("STREAMING");
      in.expectWord("TABLE");
      ObjectName name = in.objectName("table name");
      if (!in.atWord("FULL")) {
        throw in.error(
            ErrorCode.UNSUPPORTED_CLAUSE,
            "A pipeline table's flows process new rows as they arrive; REFRESH ... FULL empties"
                + " the table and runs every flow again from the beginning",
            in.peek(),
            "FULL");
      }
      in.expectWord("FULL");
      return new Statement.RefreshTable(name);
    }
    if (in.acceptWord("USE")) {
      return use();
    }
    throw in.expected("a statement (CREATE, ALTER, DROP, SHOW, DESCRIBE, SELECT, REFRESH or USE)");
  }

  /**
   * ALTER [STREAMING] TABLE name SET TBLPROPERTIES ('compute-pool' = 'p'): the one property of a
   * pipeline table that changes in place (its flows move); any other is refused at its key.
   */
  private Statement alterPipelineTable() {
    ObjectName name = in.objectName("table name");
    in.expectWord("SET");
    if (!in.atWord("TBLPROPERTIES")) {
      throw in.expected("TBLPROPERTIES (a pipeline table changes its 'compute-pool' in place)");
    }
    in.expectWord("TBLPROPERTIES");
    clauses.put("TBLPROPERTIES", in.previous());
    int mark = in.mark();
    Map<String, String> properties = parts.options();
    for (Token t : in.tokensSince(mark)) {
      if (t.kind() == Token.Kind.STRING && properties.containsKey(t.value())) {
        parts.positions.put("option:" + t.value(), t);
        if (!t.value().equals(TableOptions.COMPUTE_POOL)) {
          throw in.error(
              ErrorCode.UNSUPPORTED_OPTION,
              "TBLPROPERTIES '"
                  + t.value()
                  + "' is fixed when a pipeline table is created; only '"
                  + TableOptions.COMPUTE_POOL
                  + "' changes in place (its flows move to that pool)",
              t,
              "'" + TableOptions.COMPUTE_POOL + "'");
        }
      }
    }
    if (properties.isEmpty()) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "SET TBLPROPERTIES names the property to change: ('"
              + TableOptions.COMPUTE_POOL
              + "' = 'pool')",
          in.previous(),
          "'" + TableOptions.COMPUTE_POOL + "'");
    }
    return new Statement.AlterPipelineTable(name, properties.get(TableOptions.COMPUTE_POOL));
  }

  private Statement create() {
    if (in.acceptWords("OR", "REFRESH")) {
      in.expectWords("STREAMING", "TABLE");
      return new CreateTableParser(in, parts).createStreamingTable();
    }
    if (in.acceptWords("STREAMING", "TABLE")) {
      return new CreateTableParser(in, parts).createStreamingTable();
    }
    boolean orAlter = in.acceptWords("OR", "ALTER");
    if (in.acceptWord("MATERIALIZED")) {
      in.expectWord("TABLE");
      boolean ifNotExists = in.acceptWords("IF", "NOT", "EXISTS");
      Token nameToken = in.peek();
      ObjectName name = in.objectName("table name");
      checkTopicName(name, nameToken);
      return new Statement.CreateMaterializedTable(name, orAlter, ifNotExists, definition(true));
    }
    if (orAlter) {
      throw in.expected("MATERIALIZED TABLE (only materialized tables can be created or altered)");
    }
    if (in.acceptWord("FLOW")) {
      return new FlowParser(in).createFlow();
    }
    if (in.acceptWord("TABLE")) {
      return new CreateTableParser(in, parts).createTable();
    }
    throw in.expected("MATERIALIZED TABLE, TABLE or FLOW");
  }

  /**
   * [(schema)] clauses AS query. With {@code requireQuery} false (ALTER) the caller has seen that
   * this is an evolution.
   */
  private MaterializedTableDefinition definition(boolean requireQuery) {
    TableSchema schema = in.atSymbol("(") ? parts.schema(true) : null;
    String comment = null;
    List<String> partitionedBy = List.of();
    Clauses.Distribution distribution = null;
    Map<String, String> options = Map.of();
    Clauses.Interval freshness = null;
    Clauses.RefreshMode refreshMode = null;
    Clauses.StartMode startMode = null;
    Set<String> seen = new HashSet<>();
    while (!in.atWord("AS")) {
      Token clause = in.peek();
      String name;
      if (in.acceptWord("COMMENT")) {
        name = "COMMENT";
        comment = in.comment();
      } else if (in.acceptWords("PARTITIONED", "BY")) {
        name = "PARTITIONED BY";
        partitionedBy = in.identifierList("partition column");
      } else if (in.acceptWord("DISTRIBUTED")) {
        name = "DISTRIBUTED";
        distribution = parts.distribution();
      } else if (in.acceptWord("WITH")) {
        name = "WITH";
        options = parts.materializedTableOptions();
      } else if (in.acceptWord("FRESHNESS")) {
        name = "FRESHNESS";
        in.expectSymbol("=");
        freshness = parts.interval();
      } else if (in.acceptWords("REFRESH", "MODE") || in.acceptWord("REFRESH_MODE")) {
        name = "REFRESH MODE";
        refreshMode = parts.refreshModeValue();
      } else if (in.acceptWord("START_MODE")) {
        name = "START_MODE";
        startMode = parts.startModeValue();
      } else {
        throw in.expected(
            (schema == null && seen.isEmpty() ? "'(', " : "")
                + "COMMENT, PARTITIONED BY, DISTRIBUTED, WITH, FRESHNESS, REFRESH MODE, START_MODE or AS");
      }
      if (!seen.add(name)) {
        throw in.error(ErrorCode.INVALID_DEFINITION, name + " is given twice", clause, null);
      }
      clauses.put(name, clause);
    }
    Token as = in.peek();
    clauses.put("AS", as);
    parts.requireColumns(schema, partitionedBy, "PARTITIONED BY clause", as);
    if (distribution != null) {
      parts.requireColumns(schema, distribution.columns(), "DISTRIBUTED BY clause", as);
    }
    in.expectWord("AS");
    String query = in.captureUntil(t -> false, false, "query after AS");
    return new MaterializedTableDefinition(
        schema,
        comment,
        partitionedBy,
        distribution,
        options,
        freshness,
        refreshMode,
        startMode,
        query);
  }

  /** The table name is the backing topic's name, so it must be a valid Kafka topic name. */
  private void checkTopicName(ObjectName name, Token at) {
    String topic = name.name();
    if (topic.length() > 249
        || !topic.matches("[a-zA-Z0-9._-]+")
        || topic.equals(".")
        || topic.equals("..")) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "Table name '"
              + (topic.length() > 60 ? topic.substring(0, 57) + "..." : topic)
              + "' cannot name its Kafka topic: use letters, digits, '.', '_' and '-', at most 249 characters",
          at,
          "a valid topic name");
    }
  }

  private Statement alter() {
    ObjectName name = in.objectName("table name");
    AlterAction action;
    if (in.acceptWord("ADD")) {
      action = add();
    } else if (in.acceptWords("MODIFY", "WATERMARK")) {
      action = new Statement.ModifyWatermark(parts.watermarkBody());
    } else if (in.acceptWord("MODIFY")) {
      action = modify();
    } else if (in.acceptWords("DROP", "WATERMARK")) {
      action = new Statement.DropWatermark();
    } else if (in.acceptWord("DROP")) {
      action = dropPart();
    } else if (in.acceptWords("SET", "FRESHNESS")) {
      in.expectSymbol("=");
      action = new Statement.SetFreshness(parts.interval());
    } else if (in.acceptWords("SET", "REFRESH", "MODE") || in.acceptWords("SET", "REFRESH_MODE")) {
      action = new Statement.SetRefreshMode(parts.refreshModeValue());
    } else if (in.acceptWord("SET")) {
      action = new Statement.SetOptions(parts.materializedTableOptions());
    } else if (in.acceptWord("RESET")) {
      if (in.atSymbol("(") && in.peek(1).isSymbol(")")) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "RESET needs at least one option key: RESET ('key', ...)",
            in.peek(1),
            "an option key");
      }
      action = new Statement.ResetOptions(parts.materializedTableOptionKeys());
    } else if (in.acceptWord("SUSPEND")) {
      action = new Statement.Suspend();
    } else if (in.acceptWord("RESUME")) {
      if (in.atWord("WITH")) {
        clauses.put("RESUME WITH", in.peek());
        in.next();
        action = new Statement.Resume(parts.options());
      } else {
        action = new Statement.Resume(Map.of());
      }
    } else if (in.atWord("REFRESH") && !in.peek(1).isWord("MODE")) {
      in.next();
      action = new Statement.Refresh(in.acceptWord("PARTITION") ? parts.partitionSpec() : Map.of());
    } else if (in.atSymbol("(") || in.atWord("AS") || isClauseStart()) {
      action = new Statement.Evolve(definition(false));
    } else {
      throw in.expected(
          "ADD, MODIFY, DROP, SET, RESET, SUSPEND, RESUME, REFRESH or a new definition (... AS"
              + " query)");
    }
    return new Statement.AlterMaterializedTable(name, action);
  }

  /** After ADD: columns, a primary key, a distribution or a watermark. */
  private AlterAction add() {
    if (in.atWord("PRIMARY") || in.atWord("CONSTRAINT")) {
      return new Statement.SetPrimaryKey(primaryKey(), false);
    }
    if (in.acceptWord("DISTRIBUTION")) {
      return new Statement.SetDistribution(parts.distribution(), false);
    }
    if (in.acceptWord("WATERMARK")) {
      return new Statement.ModifyWatermark(parts.watermarkBody());
    }
    ColumnEdits edits = columnEdits();
    if (edits.onlyKey()) {
      return new Statement.SetPrimaryKey(edits.primaryKey(), false);
    }
    return new Statement.AddColumns(edits.columns(), edits.primaryKey(), edits.watermark());
  }

  /** After MODIFY: columns, the primary key or the distribution. */
  private AlterAction modify() {
    if (in.atWord("PRIMARY") || in.atWord("CONSTRAINT")) {
      return new Statement.SetPrimaryKey(primaryKey(), true);
    }
    if (in.acceptWord("DISTRIBUTION")) {
      return new Statement.SetDistribution(parts.distribution(), true);
    }
    ColumnEdits edits = columnEdits();
    if (edits.onlyKey()) {
      return new Statement.SetPrimaryKey(edits.primaryKey(), true);
    }
    if (edits.columns().isEmpty() && edits.primaryKey() == null) {
      return new Statement.ModifyWatermark(edits.watermark());
    }
    return new Statement.ModifyColumns(edits.columns(), edits.primaryKey(), edits.watermark());
  }

  /** After DROP: columns, the primary key, a constraint or the distribution. */
  private AlterAction dropPart() {
    if (in.acceptWords("PRIMARY", "KEY")) {
      return new Statement.DropPrimaryKey(null);
    }
    if (in.acceptWord("CONSTRAINT")) {
      return new Statement.DropPrimaryKey(in.identifier("constraint name"));
    }
    if (in.acceptWord("DISTRIBUTION")) {
      return new Statement.SetDistribution(null, false);
    }
    if (in.atSymbol("(")) {
      return new Statement.DropColumns(in.identifierList("column name"));
    }
    return new Statement.DropColumns(List.of(in.identifier("column name")));
  }

  /** [CONSTRAINT name] PRIMARY KEY (columns) NOT ENFORCED. */
  private TableSchema.PrimaryKey primaryKey() {
    Token at = in.peek();
    String constraint = in.acceptWord("CONSTRAINT") ? in.identifier("constraint name") : null;
    if (in.atWord("UNIQUE")) {
      parts.refuseUnique(at);
    }
    in.expectWords("PRIMARY", "KEY");
    List<String> columns = in.identifierList("column name");
    parts.notEnforced(true, at);
    return new TableSchema.PrimaryKey(constraint, columns);
  }

  /** The entries of an ADD or MODIFY list: columns, and at most one key and one watermark. */
  private record ColumnEdits(
      List<Statement.PositionedColumn> columns,
      TableSchema.PrimaryKey primaryKey,
      TableSchema.Watermark watermark) {
    boolean onlyKey() {
      return columns.isEmpty() && watermark == null && primaryKey != null;
    }
  }

  /**
   * ( entry, ... ) or one column without parentheses; an entry is a column [FIRST | AFTER c], a
   * [CONSTRAINT name] PRIMARY KEY (...) NOT ENFORCED, or WATERMARK FOR c AS expression, as in
   * Flink's ALTER TABLE. Nested names (a field of a ROW column) parse, and are refused as Flink
   * refuses them.
   */
  private ColumnEdits columnEdits() {
    List<Statement.PositionedColumn> columns = new ArrayList<>();
    TableSchema.PrimaryKey primaryKey = null;
    TableSchema.Watermark watermark = null;
    boolean list = in.acceptSymbol("(");
    do {
      Token at = in.peek();
      if (list && in.atWord("WATERMARK") && in.peek(1).isWord("FOR")) {
        in.next();
        if (watermark != null) {
          throw in.error(
              ErrorCode.INVALID_DEFINITION, "A table has at most one watermark", at, null);
        }
        watermark = parts.watermarkBody();
        continue;
      }
      if (list && (in.atWord("PRIMARY") && in.peek(1).isWord("KEY") || in.atWord("CONSTRAINT"))
          || in.atWord("UNIQUE") && in.peek(1).isSymbol("(")) {
        if (in.atWord("UNIQUE")) {
          parts.refuseUnique(at);
        }
        if (primaryKey != null) {
          throw in.error(
              ErrorCode.INVALID_DEFINITION, "A table has at most one primary key", at, null);
        }
        primaryKey = primaryKey();
        continue;
      }
      refuseNested("column");
      Column column = parts.column();
      Token key = in.peek();
      if (in.acceptWords("PRIMARY", "KEY")) {
        if (primaryKey != null) {
          throw in.error(
              ErrorCode.INVALID_DEFINITION, "A table has at most one primary key", key, null);
        }
        parts.notEnforced(true, key);
        primaryKey = new TableSchema.PrimaryKey(null, List.of(column.name()));
      }
      Statement.ColumnPosition position = Statement.ColumnPosition.END;
      if (in.acceptWord("FIRST")) {
        position = new Statement.ColumnPosition(true, null);
      } else if (in.acceptWord("AFTER")) {
        refuseNested("AFTER column");
        position = new Statement.ColumnPosition(false, in.identifier("column name"));
      }
      columns.add(new Statement.PositionedColumn(column, position));
    } while (list && in.acceptSymbol(","));
    if (list) {
      in.expectSymbol(")");
    }
    return new ColumnEdits(columns, primaryKey, watermark);
  }

  /** A dotted name (a field of a ROW column): Flink's parser takes it, its ALTER refuses it. */
  private void refuseNested(String what) {
    if (!in.peek(1).isSymbol(".")) {
      return;
    }
    Token at = in.peek();
    StringBuilder name = new StringBuilder(in.identifier(what));
    while (in.acceptSymbol(".")) {
      name.append('.').append(in.identifier(what));
    }
    throw in.error(
        ErrorCode.UNSUPPORTED_CLAUSE,
        "Altering a field of a nested ROW column ("
            + name
            + ") is not supported (nor is it in Flink): MODIFY the whole column with its new ROW"
            + " type",
        at,
        null);
  }

  private boolean isClauseStart() {
    for (String word :
        List.of(
            "COMMENT",
            "PARTITIONED",
            "DISTRIBUTED",
            "WITH",
            "FRESHNESS",
            "REFRESH",
            "REFRESH_MODE",
            "START_MODE")) {
      if (in.atWord(word)) {
        return true;
      }
    }
    return false;
  }

  private Statement drop() {
    if (in.acceptWord("FLOW")) {
      return dropFlow();
    }
    if (in.acceptWord("MATERIALIZED")) {
      in.expectWord("TABLE");
      boolean ifExists = in.acceptWords("IF", "EXISTS");
      return new Statement.DropMaterializedTable(in.objectName("table name"), ifExists);
    }
    in.expectWord("TABLE");
    boolean ifExists = in.acceptWords("IF", "EXISTS");
    return new Statement.DropTable(in.objectName("table name"), ifExists);
  }

  private Statement show() {
    if (in.acceptWords("CREATE", "MATERIALIZED", "TABLE")) {
      return new Statement.ShowCreateMaterializedTable(in.objectName("table name"));
    }
    if (in.acceptWords("MATERIALIZED", "TABLES")) {
      ObjectName database = fromDatabase();
      String like = in.acceptWord("LIKE") ? in.string("pattern") : null;
      return new Statement.ShowMaterializedTables(database, like);
    }
    if (in.acceptWords("MATERIALIZED", "TABLE")) {
      return new Statement.ShowMaterializedTable(in.objectName("table name"));
    }
    if (in.acceptWord("TABLES")) {
      return new Statement.ShowTables(fromDatabase());
    }
    if (in.acceptWord("FLOWS")) {
      boolean ofTable = in.acceptWord("IN") || in.acceptWord("FROM");
      return new Statement.ShowFlows(ofTable ? in.objectName("table name") : null);
    }
    throw in.expected(
        "MATERIALIZED TABLES, MATERIALIZED TABLE, CREATE MATERIALIZED TABLE, TABLES or FLOWS");
  }

  /** [FROM | IN] [catalog.]database, as an ObjectName whose name is the database. */
  private ObjectName fromDatabase() {
    if (!in.acceptWord("FROM") && !in.acceptWord("IN")) {
      return null;
    }
    String first = in.identifier("database name");
    if (in.acceptSymbol(".")) {
      return new ObjectName(null, first, in.identifier("database name"));
    }
    return ObjectName.of(first);
  }

  private Statement use() {
    if (in.acceptWord("CATALOG")) {
      return new Statement.Use(in.identifier("catalog name"), null);
    }
    String first = in.identifier("database name");
    if (in.acceptSymbol(".")) {
      return new Statement.Use(first, in.identifier("database name"));
    }
    return new Statement.Use(null, first);
  }

  private Statement dropFlow() {
    boolean ifExists = in.acceptWords("IF", "EXISTS");
    return new Statement.DropFlow(in.objectName("flow name"), ifExists);
  }
}
