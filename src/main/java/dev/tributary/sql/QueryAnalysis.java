package dev.tributary.sql;

import dev.tributary.system.DeepStacks;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.config.Lex;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.SqlWithItem;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;

/**
 * An AS query read with Flink's own parser (Calcite with Flink's grammar): the tables it reads,
 * from the parse tree (joins, subqueries, CTEs, window table functions such as {@code
 * TABLE(TUMBLE(TABLE orders, ...))}, temporal joins, parentheses), and its syntax errors with their
 * position in the query, found here before anything is sent to the SQL Gateway.
 */
public final class QueryAnalysis {

  private static final SqlParser.Config CONFIG =
      // As Flink's planner configures it: Java lexical rules (back-tick quoting, names as
      // written, case-sensitive), Flink's grammar and conformance.
      SqlParser.config()
          .withParserFactory(FlinkSqlParserImpl.FACTORY)
          .withConformance(FlinkSqlConformance.DEFAULT)
          .withLex(Lex.JAVA)
          .withIdentifierMaxLength(256);

  /** A syntax error: the parser's message and where in the query (1-based line and column). */
  public record SyntaxError(String message, int line, int column) {}

  private QueryAnalysis() {}

  /** The query's syntax error, if Flink's parser finds one. */
  public static Optional<SyntaxError> syntaxError(String query) {
    SqlParseException e = parsed(query).error();
    if (e == null) {
      return Optional
          .empty(); // parsed, or the parser gave up another way: Flink's validation decides
    }
    String message = e.getMessage() == null ? "syntax error" : e.getMessage();
    // Calcite lists every expected token; the first lines say what was found and where.
    int cut = message.indexOf("\nWas expecting");
    if (cut > 0) {
      message = message.substring(0, cut).strip();
    }
    int line = e.getPos() == null ? 0 : e.getPos().getLineNum();
    int column = e.getPos() == null ? 0 : e.getPos().getColumnNum();
    return Optional.of(new SyntaxError(reservedWordHint(message), line, column));
  }

  /**
   * Why a column's data type is not one in Flink's DDL grammar (a type Flink does not know by name
   * parses, as a user-defined type, and is refused by Flink's validation), if it is not.
   */
  public static Optional<String> typeError(String type) {
    SqlParseException e = parsed("CREATE TABLE t (c " + type + "\n)", true).error();
    if (e == null) {
      return Optional.empty();
    }
    String message = e.getMessage() == null ? "not a data type" : e.getMessage();
    int cut = message.indexOf("\nWas expecting");
    return Optional.of(cut > 0 ? message.substring(0, cut).strip() : message);
  }

  /** A parse: the tree, or the syntax error, or neither when the parser gave up another way. */
  private record Parsed(SqlNode node, SqlParseException error, boolean interrupted) {
    Parsed(SqlNode node, SqlParseException error) {
      this(node, error, false);
    }
  }

  /**
   * Parses of recent texts. One statement asks several questions of the same query (its syntax, the
   * tables it reads, its derived key, whether it keeps state), and a script asks them of the same
   * query once per statement and again in its second run: without this each question parsed anew, a
   * quarter of a 500-statement script's time. The trees are only read once built. Bounded by
   * entries and by the length of the texts kept, so a script of long queries cannot grow it.
   */
  private static final int CACHED_PARSES = 256;

  private static final int CACHED_TEXT_CHARS = 16 * 1024;

  private static final Map<String, Parsed> PARSES =
      Collections.synchronizedMap(
          new LinkedHashMap<>(CACHED_PARSES, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
              return size() > CACHED_PARSES;
            }
          });

  private static Parsed parsed(String query) {
    return parsed(query, false);
  }

  private static Parsed parsed(String text, boolean statement) {
    if (text.length() > CACHED_TEXT_CHARS) {
      return parsedNow(text, statement);
    }
    String key = (statement ? "S" : "Q") + text;
    Parsed cached = PARSES.get(key);
    if (cached == null) {
      cached = parsedNow(text, statement);
      if (!cached.interrupted()) {
        PARSES.put(key, cached);
      }
    }
    return cached;
  }

  /**
   * Parsed on a deep stack ({@link DeepStacks}): Calcite's parser recurses once per operator of a
   * chain, and the longest chain a statement may hold overflows a request thread's stack.
   */
  private static Parsed parsedNow(String text, boolean statement) {
    try {
      return DeepStacks.call(
          () -> {
            try {
              SqlParser parser = SqlParser.create(text, CONFIG);
              return new Parsed(statement ? parser.parseStmt() : parser.parseQuery(), null);
            } catch (SqlParseException e) {
              return new Parsed(null, e);
            }
          });
    } catch (DeepStacks.Interrupted e) {
      return new Parsed(null, null, true);
    } catch (RuntimeException | StackOverflowError e) {
      return new Parsed(null, null); // gave up
    }
  }

  private static final Pattern ENCOUNTERED = Pattern.compile("^Encountered \"([A-Za-z_]\\w*)");

  /**
   * A syntax error at a word Flink reserves (a column named {@code date}, {@code value}, {@code
   * timestamp}, ...) says so and how to quote it: the parser's own message only shows what it met.
   * Which words are reserved is the parser's own list (Calcite's parser metadata for Flink's
   * grammar).
   */
  static String reservedWordHint(String message) {
    Matcher m = ENCOUNTERED.matcher(message);
    if (!m.find()) {
      return message;
    }
    String word = m.group(1);
    boolean reserved = ParserWords.METADATA.isReservedWord(word.toUpperCase(Locale.ROOT));
    return reserved
        ? "`"
            + word
            + "` is a reserved word in Flink SQL; quote it as `"
            + word
            + "` with backticks to use it as a name ("
            + message
            + ")"
        : message;
  }

  /** Flink's grammar's word lists, built once on first use. */
  private static final class ParserWords {
    static final SqlAbstractParserImpl.Metadata METADATA =
        SqlParser.create("", CONFIG).getMetadata();
  }

  /**
   * The tables the query reads, in order of appearance, without the names of its own CTEs; empty
   * when the query does not parse (its syntax error is reported on its own).
   */
  public static Optional<List<ObjectName>> tables(String query) {
    return parse(query)
        .map(
            node -> {
              Set<ObjectName> found = new LinkedHashSet<>();
              new Walker(found).query(node, new HashSet<>());
              return List.copyOf(found);
            });
  }

  /** The parse tree, or empty when the query does not parse. */
  private static Optional<SqlNode> parse(String query) {
    return Optional.ofNullable(parsed(query).node());
  }

  /**
   * The unique key of the rows an updating query emits, as Flink derives it for an aggregation: the
   * output names of the GROUP BY items of the outermost SELECT, columns or expressions (all its
   * columns for SELECT DISTINCT). Empty when there is none to derive: no grouping, a grouping item
   * not in the SELECT list, GROUPING SETS, a window aggregation (grouped by {@code
   * window_start}/{@code window_end}, which emits each window once and needs no key), set
   * operations, or a query that does not parse.
   */
  public static Optional<List<String>> derivedKey(String query) {
    // Asked on every reconciler pass of every table (through Defaults.effective): parse once.
    Optional<List<String>> known = DERIVED_KEYS.get(query);
    if (known != null) {
      return known;
    }
    Optional<List<String>> key = deriveKey(query);
    if (DERIVED_KEYS.size() >= 10_000) {
      DERIVED_KEYS.clear();
    }
    DERIVED_KEYS.put(query, key);
    return key;
  }

  private static final Map<String, Optional<List<String>>> DERIVED_KEYS = new ConcurrentHashMap<>();

  private static Optional<List<String>> deriveKey(String query) {
    SqlNode node = parse(query).orElse(null);
    while (node instanceof SqlOrderBy || node instanceof SqlWith) {
      node = node instanceof SqlOrderBy o ? o.query : ((SqlWith) node).body;
    }
    if (!(node instanceof SqlSelect select)) {
      return Optional.empty(); // a set operation, VALUES, or no parse
    }
    List<String> outputs = new ArrayList<>();
    List<SqlNode> projected = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      SqlNode expression = item;
      String name;
      if (item instanceof SqlCall call && call.getKind() == SqlKind.AS) {
        expression = call.operand(0);
        name = ((SqlIdentifier) call.operand(1)).getSimple();
      } else if (item instanceof SqlIdentifier id && !id.isStar()) {
        name = id.names.get(id.names.size() - 1);
      } else {
        name = null; // a star, or an expression without a name
      }
      outputs.add(name);
      projected.add(expression);
    }
    SqlNodeList groups = select.getGroup();
    if (groups == null || groups.isEmpty()) {
      return select.isDistinct() && !outputs.contains(null) && distinct(outputs)
          ? Optional.of(List.copyOf(outputs))
          : Optional.empty();
    }
    SelectIndex index = SelectIndex.of(projected, outputs);
    List<String> key = new ArrayList<>();
    for (SqlNode group : groups) {
      if (group instanceof SqlIdentifier id && id.isStar()
          || group.getKind() == SqlKind.GROUPING_SETS
          || group.getKind() == SqlKind.ROLLUP
          || group.getKind() == SqlKind.CUBE) {
        return Optional.empty();
      }
      if (group instanceof SqlIdentifier id) {
        String column = id.names.get(id.names.size() - 1);
        if (column.equalsIgnoreCase("window_start") || column.equalsIgnoreCase("window_end")) {
          return Optional.empty();
        }
      }
      int at = index.find(group);
      if (at < 0) {
        return Optional.empty();
      }
      key.add(outputs.get(at));
    }
    return distinct(key) ? Optional.of(List.copyOf(key)) : Optional.empty();
  }

  /**
   * The GROUP BY items of the outermost SELECT that are not among its named output columns, as SQL
   * text: selecting them (with a name) gives the aggregation its key. Empty when there is no GROUP
   * BY, or every item is selected.
   */
  public static List<String> unselectedGroupItems(String query) {
    SqlNode node = parse(query).orElse(null);
    while (node instanceof SqlOrderBy || node instanceof SqlWith) {
      node = node instanceof SqlOrderBy o ? o.query : ((SqlWith) node).body;
    }
    if (!(node instanceof SqlSelect select) || select.getGroup() == null) {
      return List.of();
    }
    List<String> outputs = new ArrayList<>();
    List<SqlNode> projected = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      if (item instanceof SqlCall call && call.getKind() == SqlKind.AS) {
        projected.add(call.operand(0));
        outputs.add(((SqlIdentifier) call.operand(1)).getSimple());
      } else {
        projected.add(item);
        outputs.add(
            item instanceof SqlIdentifier id && !id.isStar()
                ? id.names.get(id.names.size() - 1)
                : null);
      }
    }
    SelectIndex index = SelectIndex.of(projected, outputs);
    List<String> missing = new ArrayList<>();
    for (SqlNode group : select.getGroup()) {
      if (index.find(group) < 0) {
        missing.add(group.toSqlString(c -> c.withQuoteAllIdentifiers(false)).getSql());
      }
    }
    return missing;
  }

  /**
   * Which SELECT item a grouping item is: the same column (qualified or not), the same expression
   * (as {@code GROUP BY CAST(event_time AS DATE)} with {@code CAST(event_time AS DATE) AS d}), or
   * an output alias Flink accepts in GROUP BY. Built once per SELECT, so that matching every
   * grouping item costs the size of the query, not its square.
   */
  private record SelectIndex(
      Map<List<String>, Integer> qualified,
      Map<String, Integer> byName,
      Map<String, Integer> expressions,
      Map<String, Integer> aliases) {

    static SelectIndex of(List<SqlNode> projected, List<String> outputs) {
      SelectIndex index =
          new SelectIndex(new HashMap<>(), new HashMap<>(), new HashMap<>(), new HashMap<>());
      for (int i = 0; i < projected.size(); i++) {
        if (outputs.get(i) == null) {
          continue; // no output name: nothing a key can name
        }
        if (projected.get(i) instanceof SqlIdentifier q) {
          index.qualified.putIfAbsent(q.names, i);
          index.byName.putIfAbsent(q.names.get(q.names.size() - 1), i);
        } else {
          index.expressions.putIfAbsent(projected.get(i).toString(), i);
          index.aliases.putIfAbsent(outputs.get(i), i);
        }
      }
      return index;
    }

    /** The SELECT item's position, or -1 when the grouping item is not selected. */
    int find(SqlNode group) {
      Integer at;
      if (group instanceof SqlIdentifier id) {
        at = qualified.get(id.names);
        if (at == null && id.names.size() == 1) {
          at = byName.get(id.getSimple());
          if (at == null) {
            at = aliases.get(id.getSimple()); // GROUP BY d, with CAST(...) AS d selected
          }
        }
      } else {
        at = expressions.get(group.toString());
      }
      return at == null ? -1 : at;
    }
  }

  /**
   * Whether the query keeps state its values depend on: an aggregation (GROUP BY, or an aggregate
   * function over the whole input), SELECT DISTINCT, a join, or an OVER window (deduplication and
   * Top-N are ROW_NUMBER() OVER). Read from the parse tree; a query that does not parse is taken to
   * keep state.
   */
  public static boolean keepsState(String query) {
    Optional<SqlNode> node = parse(query);
    return node.isEmpty() || stateful(node.get());
  }

  /** Flink's aggregate functions, by name. */
  static final Set<String> AGGREGATE_FUNCTIONS =
      Set.of(
          "COUNT",
          "SUM",
          "SUM0",
          "AVG",
          "MIN",
          "MAX",
          "COLLECT",
          "LISTAGG",
          "ARRAY_AGG",
          "FIRST_VALUE",
          "LAST_VALUE",
          "ANY_VALUE",
          "STDDEV",
          "STDDEV_POP",
          "STDDEV_SAMP",
          "VARIANCE",
          "VAR_POP",
          "VAR_SAMP",
          "BIT_AND",
          "BIT_OR",
          "BIT_XOR",
          "JSON_OBJECTAGG",
          "JSON_ARRAYAGG");

  /**
   * Whether any node of the tree aggregates, joins, or groups. Walked with an explicit stack: a
   * chain of thousands of {@code OR}s parses into a tree as deep as it is long.
   */
  private static boolean stateful(SqlNode root) {
    Deque<SqlNode> pending = new ArrayDeque<>();
    if (root != null) {
      pending.push(root);
    }
    while (!pending.isEmpty()) {
      SqlNode node = pending.pop();
      if (node instanceof SqlSelect select
          && (select.getGroup() != null && !select.getGroup().isEmpty() || select.isDistinct())) {
        return true;
      }
      if (node instanceof SqlJoin || node.getKind() == SqlKind.OVER) {
        return true;
      }
      if (node instanceof SqlCall call) {
        if (call.getOperator().isAggregator()
            || AGGREGATE_FUNCTIONS.contains(
                call.getOperator().getName().toUpperCase(Locale.ROOT))) {
          return true;
        }
        pushAll(pending, call.getOperandList());
      } else if (node instanceof SqlNodeList list) {
        pushAll(pending, list.getList());
      }
    }
    return false;
  }

  private static void pushAll(Deque<SqlNode> pending, List<SqlNode> nodes) {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      if (nodes.get(i) != null) {
        pending.push(nodes.get(i));
      }
    }
  }

  private static boolean distinct(List<String> names) {
    return new HashSet<>(names).size() == names.size();
  }

  /** Collects table references: FROM items are tables, everything else is searched for queries. */
  private record Walker(Set<ObjectName> found) {

    void query(SqlNode node, Set<String> ctes) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlWith with) {
        Set<String> inner = new HashSet<>(ctes);
        for (SqlNode item : with.withList) {
          SqlWithItem w = (SqlWithItem) item;
          query(w.query, inner);
          inner.add(w.name.getSimple());
        }
        query(with.body, inner);
      } else if (node instanceof SqlOrderBy orderBy) {
        query(orderBy.query, ctes);
      } else if (node instanceof SqlSelect select) {
        from(select.getFrom(), ctes);
        expressions(select.getSelectList(), ctes);
        expressions(select.getWhere(), ctes);
        expressions(select.getHaving(), ctes);
      } else if (node instanceof SqlCall call && node.getKind().belongsTo(SqlKind.SET_QUERY)) {
        call.getOperandList().forEach(operand -> query(operand, ctes));
      } else if (node instanceof SqlCall call) {
        // VALUES, or a query wrapped in another call: look inside.
        expressions(call, ctes);
      }
    }

    void from(SqlNode node, Set<String> ctes) {
      if (node == null) {
        return;
      }
      if (node instanceof SqlIdentifier id) {
        table(id, ctes);
      } else if (node instanceof SqlJoin join) {
        from(join.getLeft(), ctes);
        from(join.getRight(), ctes);
        expressions(join.getCondition(), ctes);
      } else if (isQuery(node)) {
        query(node, ctes);
      } else if (node instanceof SqlCall call
          && (call.getKind() == SqlKind.AS
              || call.getKind() == SqlKind.SNAPSHOT
              || call.getKind() == SqlKind.LATERAL
              || call.getKind() == SqlKind.OVER)) {
        from(call.operand(0), ctes);
      } else if (node instanceof SqlCall call
          && (call.getKind() == SqlKind.EXPLICIT_TABLE
              || call.getKind() == SqlKind.MATCH_RECOGNIZE)) {
        from(call.operand(0), ctes); // TABLE orders; orders MATCH_RECOGNIZE (...)
      } else if (node instanceof SqlCall call) {
        // TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), ...)), UNNEST(...), LATERAL TABLE(f(...)):
        // identifiers among the arguments are columns; explicit tables and queries are read.
        call.getOperandList().forEach(operand -> argument(operand, ctes));
      }
    }

    private void argument(SqlNode root, Set<String> ctes) {
      Deque<SqlNode> pending = new ArrayDeque<>();
      if (root != null) {
        pending.push(root);
      }
      while (!pending.isEmpty()) {
        if (!(pending.pop() instanceof SqlCall call)) {
          continue;
        }
        if (call.getKind() == SqlKind.EXPLICIT_TABLE || isQuery(call)) {
          from(call, ctes);
        } else {
          pushAll(pending, call.getOperandList());
        }
      }
    }

    private static boolean isQuery(SqlNode node) {
      return node instanceof SqlSelect
          || node instanceof SqlWith
          || node instanceof SqlOrderBy
          || node.getKind().belongsTo(SqlKind.SET_QUERY);
    }

    /** Subqueries inside expressions (IN, EXISTS, scalar subqueries). */
    void expressions(SqlNode root, Set<String> ctes) {
      // An explicit stack: expression trees are as deep as an OR chain is long; queries nest
      // only as deep as the parser itself recursed.
      Deque<SqlNode> pending = new ArrayDeque<>();
      if (root != null) {
        pending.push(root);
      }
      while (!pending.isEmpty()) {
        SqlNode node = pending.pop();
        if (isQuery(node)) {
          query(node, ctes);
        } else if (node instanceof SqlNodeList list) {
          pushAll(pending, list.getList());
        } else if (node instanceof SqlCall call) {
          pushAll(pending, call.getOperandList());
        }
      }
    }

    void table(SqlIdentifier id, Set<String> ctes) {
      List<String> parts = new ArrayList<>(id.names);
      if (parts.size() == 1 && ctes.contains(parts.get(0))) {
        return;
      }
      found.add(
          switch (parts.size()) {
            case 1 -> ObjectName.of(parts.get(0));
            case 2 -> new ObjectName(null, parts.get(0), parts.get(1));
            default ->
                new ObjectName(
                    parts.get(parts.size() - 3),
                    parts.get(parts.size() - 2),
                    parts.get(parts.size() - 1));
          });
    }
  }
}
