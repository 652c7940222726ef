package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Parses the parts that table statements share: the schema, option lists and clauses. */
final class TableParts {

  private final Cursor in;

  /** Where each option key and column of the latest parsed list stood, to point refusals at. */
  final Map<String, Token> positions = new HashMap<>();

  TableParts(Cursor in) {
    this.in = in;
  }

  /**
   * ( column, ..., [WATERMARK ...], [PRIMARY KEY ...], [CONSTRAINT ... EXPECT ...] ). With {@code
   * strictKey} (Flink's grammar) a primary key must say NOT ENFORCED, as Flink's validation
   * requires; Databricks' informational keys (no ENFORCED clause) mean the same and are taken as
   * NOT ENFORCED.
   */
  TableSchema schema(boolean strictKey) {
    in.expectSymbol("(");
    List<Column> columns = new ArrayList<>();
    Set<String> names = new HashSet<>();
    TableSchema.Watermark watermark = null;
    TableSchema.PrimaryKey primaryKey = null;
    List<TableSchema.Expectation> expectations = new ArrayList<>();
    do {
      Token at = in.peek();
      if (in.acceptWord("WATERMARK")) {
        if (watermark != null) {
          throw in.error(
              ErrorCode.INVALID_DEFINITION, "A table has at most one watermark", at, null);
        }
        watermark = watermarkBody();
      } else if (in.atWord("UNIQUE") && in.peek(1).isSymbol("(")) {
        refuseUnique(at);
      } else if (in.atWord("PRIMARY") || in.atWord("CONSTRAINT")) {
        String name = in.acceptWord("CONSTRAINT") ? in.identifier("constraint name") : null;
        if (in.atWord("UNIQUE")) {
          refuseUnique(at);
        }
        if (in.acceptWord("EXPECT")) {
          expectations.add(expectation(name));
        } else {
          if (primaryKey != null) {
            throw in.error(
                ErrorCode.INVALID_DEFINITION, "A table has at most one primary key", at, null);
          }
          Token key = in.peek();
          in.expectWords("PRIMARY", "KEY");
          List<String> keyColumns = in.identifierList("column name");
          notEnforced(strictKey, key);
          primaryKey = new TableSchema.PrimaryKey(name, keyColumns);
        }
      } else {
        Column column = column();
        positions.put("column:" + column.name(), at);
        Token key = in.peek();
        if (in.acceptWords("PRIMARY", "KEY")) {
          if (primaryKey != null) {
            throw in.error(
                ErrorCode.INVALID_DEFINITION, "A table has at most one primary key", at, null);
          }
          notEnforced(strictKey, key);
          primaryKey = new TableSchema.PrimaryKey(null, List.of(column.name()));
        }
        if (!names.add(column.name())) {
          throw in.error(
              ErrorCode.INVALID_DEFINITION,
              "Column '" + column.name() + "' is defined twice",
              at,
              null);
        }
        columns.add(column);
      }
    } while (in.acceptSymbol(","));
    Token close = in.peek();
    in.expectSymbol(")");
    TableSchema schema = new TableSchema(columns, watermark, primaryKey, expectations);
    boolean typed =
        columns.stream().anyMatch(c -> c.kind() == Column.Kind.PHYSICAL && c.type() != null);
    boolean named =
        columns.stream().anyMatch(c -> c.kind() == Column.Kind.PHYSICAL && c.type() == null);
    if (typed && named) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "Either every physical column has a type or none does: a list of names only gives the"
              + " order of the query's columns, whose types Flink infers",
          close,
          null);
    }
    if (TableSchema.hasPhysicalColumns(schema)) {
      if (primaryKey != null) {
        requireColumns(schema, primaryKey.columns(), "primary key", close);
      }
      if (watermark != null) {
        requireColumns(schema, List.of(watermark.column()), "watermark", close);
      }
    }
    return schema;
  }

  /** Every name must be a column of the schema (checked only when the schema lists columns). */
  void requireColumns(TableSchema schema, List<String> names, String what, Token at) {
    if (!TableSchema.hasPhysicalColumns(schema)) {
      return;
    }
    for (String name : names) {
      if (schema.column(name) == null) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "The " + what + " names column '" + name + "', which the table does not have",
            at,
            null);
      }
    }
  }

  /** WITH options of a materialized table: documented keys only, values of the right shape. */
  Map<String, String> materializedTableOptions() {
    int mark = in.mark();
    Map<String, String> options = options();
    List<Token> tokens = in.tokensSince(mark);
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (tokens.get(i).kind() == Token.Kind.STRING && tokens.get(i + 1).isSymbol("=")) {
        positions.put("option:" + tokens.get(i).value(), tokens.get(i));
        checkOption(tokens.get(i), options.get(tokens.get(i).value()));
      }
    }
    return options;
  }

  /** RESET keys: documented keys only. */
  List<String> materializedTableOptionKeys() {
    int mark = in.mark();
    List<String> keys = optionKeys();
    for (Token t : in.tokensSince(mark)) {
      if (t.kind() == Token.Kind.STRING) {
        positions.put("option:" + t.value(), t);
        checkKey(t);
      }
    }
    return keys;
  }

  private void checkOption(Token key, String value) {
    checkKey(key);
    TableOptions.invalidValue(key.value(), value)
        .ifPresent(
            shape -> {
              throw in.error(
                  ErrorCode.INVALID_OPTION_VALUE,
                  "Invalid value '"
                      + value
                      + "' for option '"
                      + key.value()
                      + "': expected "
                      + shape,
                  key,
                  shape);
            });
  }

  private void checkKey(Token key) {
    if (!TableOptions.known(key.value())) {
      String hint =
          TableOptions.nearest(key.value())
              .map(k -> "; did you mean '" + k + "'?")
              .orElse("; see the documented options");
      throw in.error(
          ErrorCode.UNKNOWN_OPTION,
          "Unknown option '" + key.value() + "'" + hint,
          key,
          TableOptions.nearest(key.value()).orElse(null));
    }
  }

  /** FOR column AS expression (after WATERMARK). */
  TableSchema.Watermark watermarkBody() {
    in.expectWord("FOR");
    String column = in.identifier("watermark column");
    in.expectWord("AS");
    String expression = in.captureUntil(t -> t.isSymbol(","), false, "watermark expression");
    return new TableSchema.Watermark(column, expression);
  }

  /** One column definition: physical, metadata or computed. */
  Column column() {
    String name = in.identifier("column name");
    if (in.atSymbol(",") || in.atSymbol(")")) {
      return Column.physical(name, null, false, null); // named only: the query gives its type
    }
    if (in.acceptWord("AS")) {
      String expression =
          in.captureUntil(
              t -> t.isSymbol(",") || t.isWord("COMMENT") || t.isWord("FIRST") || t.isWord("AFTER"),
              false,
              "column expression");
      return Column.computed(name, expression, comment());
    }
    Token typeAt = in.peek();
    String type =
        in.captureType(
            t ->
                t.isSymbol(",")
                    || t.isWord("NOT")
                    || t.isWord("NULL")
                    || t.isWord("COMMENT")
                    || t.isWord("METADATA")
                    || t.isWord("PRIMARY")
                    || t.isWord("FIRST")
                    || t.isWord("AFTER"));
    type = TypeText.canonical(type);
    requireType(name, type, typeAt);
    if (in.acceptWord("METADATA")) {
      String key = in.acceptWord("FROM") ? in.string("metadata key") : null;
      boolean virtual = in.acceptWord("VIRTUAL");
      return Column.metadata(name, type, key, virtual, comment());
    }
    boolean notNull = false;
    if (in.acceptWords("NOT", "NULL")) {
      notNull = true;
    } else {
      in.acceptWord("NULL");
    }
    return Column.physical(name, type, notNull, comment());
  }

  /**
   * A column's type must be one in Flink's DDL grammar, checked by Flink's parser: a list entry
   * this grammar does not know ({@code UNIQUE (a)}, {@code x.y INT}) must not pass for a column
   * with a strange type.
   */
  private void requireType(String column, String type, Token at) {
    QueryAnalysis.typeError(type)
        .ifPresent(
            problem -> {
              throw in.error(
                  ErrorCode.SQL_SYNTAX_ERROR,
                  "Expected a data type for column '" + column + "' but found '" + type + "'",
                  at,
                  "a data type");
            });
  }

  private String comment() {
    return in.acceptWord("COMMENT") ? in.comment() : null;
  }

  /**
   * After a primary key's columns: NOT ENFORCED, the only mode Flink supports. Written ENFORCED, or
   * not written where {@code strict}, the key is refused as Flink's validation refuses it (its
   * parser takes both).
   */
  void notEnforced(boolean strict, Token key) {
    if (in.acceptWord("NOT")) {
      in.expectWord("ENFORCED");
    } else if (in.atWord("ENFORCED") || strict) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "Flink does not enforce primary keys (it does not own the data): write PRIMARY KEY (...)"
              + " NOT ENFORCED",
          in.atWord("ENFORCED") ? in.peek() : key,
          "NOT ENFORCED");
    }
  }

  /**
   * At a UNIQUE entry ([CONSTRAINT name] already read): refused, as Flink's validation refuses it.
   * Its parser takes it, so this one does, to say so at the entry.
   */
  void refuseUnique(Token at) {
    throw in.error(
        ErrorCode.UNSUPPORTED_CLAUSE,
        "UNIQUE constraints are not supported (Flink does not support them either): a table has"
            + " one key, PRIMARY KEY (...) NOT ENFORCED",
        at,
        null);
  }

  private TableSchema.Expectation expectation(String name) {
    if (name == null) {
      throw in.error(
          ErrorCode.SQL_SYNTAX_ERROR,
          "An expectation needs a name: CONSTRAINT name EXPECT (...)",
          in.previous(),
          "CONSTRAINT name");
    }
    in.expectSymbol("(");
    int mark = in.mark();
    String expression = in.captureUntil(t -> false, false, "expectation");
    checkExpectation(name, in.tokensSince(mark));
    in.expectSymbol(")");
    TableSchema.OnViolation action = null;
    if (in.acceptWords("ON", "VIOLATION")) {
      if (in.acceptWords("DROP", "ROW")) {
        action = TableSchema.OnViolation.DROP_ROW;
      } else if (in.acceptWords("FAIL", "UPDATE")) {
        action = TableSchema.OnViolation.FAIL_UPDATE;
      } else {
        throw in.expected("DROP ROW or FAIL UPDATE");
      }
    }
    return new TableSchema.Expectation(name, expression, action);
  }

  /**
   * An expectation is evaluated on one row: no aggregates, window or ranking functions, generator
   * functions or subqueries.
   */
  private void checkExpectation(String name, List<Token> tokens) {
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      boolean call = i + 1 < tokens.size() && tokens.get(i + 1).isSymbol("(");
      String problem = null;
      if (t.isWord("SELECT")) {
        problem = "a subquery";
      } else if (t.isWord("OVER")) {
        problem = "a window function (OVER)";
      } else if (call && t.kind() == Token.Kind.WORD && NOT_ROW_LEVEL.contains(t.upper())) {
        problem = "the function " + t.upper() + ", which is not evaluated row by row";
      }
      if (problem != null) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "Expectation '" + name + "' must not use " + problem,
            t,
            "a condition on one row");
      }
    }
  }

  /** Aggregates, and the functions that read other rows or make several rows of one. */
  private static final Set<String> NOT_ROW_LEVEL =
      Stream.concat(
              QueryAnalysis.AGGREGATE_FUNCTIONS.stream(),
              Stream.of(
                  "ROW_NUMBER",
                  "RANK",
                  "DENSE_RANK",
                  "PERCENT_RANK",
                  "CUME_DIST",
                  "NTILE",
                  "LAG",
                  "LEAD",
                  "NTH_VALUE",
                  "EXPLODE",
                  "EXPLODE_OUTER",
                  "POSEXPLODE",
                  "INLINE",
                  "STACK",
                  "UNNEST"))
          .collect(Collectors.toUnmodifiableSet());

  /** ( 'key' = 'value', ... ), keys unique. */
  Map<String, String> options() {
    in.expectSymbol("(");
    Map<String, String> options = new LinkedHashMap<>();
    if (in.acceptSymbol(")")) {
      return options;
    }
    do {
      Token keyToken = in.peek();
      if (options.size() == Limits.MAX_OPTIONS) {
        throw in.error(
            ErrorCode.STATEMENT_TOO_LARGE,
            "A WITH clause has at most " + Limits.MAX_OPTIONS + " options",
            keyToken,
            null);
      }
      String key = in.string("option key");
      if (key.length() > Limits.MAX_OPTION_KEY) {
        throw in.error(
            ErrorCode.STATEMENT_TOO_LARGE,
            "An option key has at most "
                + Limits.MAX_OPTION_KEY
                + " characters; this one has "
                + key.length(),
            keyToken,
            null);
      }
      in.expectSymbol("=");
      Token valueToken = in.peek();
      String value = in.string("value of '" + key + "'");
      if (value.length() > Limits.MAX_OPTION_VALUE) {
        throw in.error(
            ErrorCode.STATEMENT_TOO_LARGE,
            "The value of option '"
                + key
                + "' has "
                + value.length()
                + " characters; at most "
                + Limits.MAX_OPTION_VALUE
                + " are accepted",
            valueToken,
            null);
      }
      if (options.put(key, value) != null) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION, "Option '" + key + "' is given twice", keyToken, null);
      }
    } while (in.acceptSymbol(","));
    in.expectSymbol(")");
    return options;
  }

  /** ( 'key', ... ). */
  List<String> optionKeys() {
    in.expectSymbol("(");
    List<String> keys = new ArrayList<>();
    do {
      keys.add(in.string("option key"));
    } while (in.acceptSymbol(","));
    in.expectSymbol(")");
    return keys;
  }

  /** ( column = 'value', ... ) of REFRESH PARTITION. */
  Map<String, String> partitionSpec() {
    in.expectSymbol("(");
    Map<String, String> spec = new LinkedHashMap<>();
    do {
      Token at = in.peek();
      String column = in.identifier("partition column");
      in.expectSymbol("=");
      Token value = in.next();
      if (value.kind() != Token.Kind.STRING && value.kind() != Token.Kind.NUMBER) {
        throw in.error(
            ErrorCode.SQL_SYNTAX_ERROR,
            "Expected a partition value but found " + value.describe(),
            value,
            "a literal");
      }
      if (spec.put(column, value.value()) != null) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            "Partition column '" + column + "' is given twice",
            at,
            null);
      }
    } while (in.acceptSymbol(","));
    in.expectSymbol(")");
    return spec;
  }

  /** INTERVAL 'n' UNIT (the INTERVAL keyword already consumed or not). */
  Clauses.Interval interval() {
    in.expectWord("INTERVAL");
    Token amountToken = in.peek();
    if (amountToken.kind() == Token.Kind.NUMBER) {
      // Flink's grammar takes an interval literal, whose amount is a string: INTERVAL 1 DAY is a
      // syntax error there, so it is one here too.
      throw in.error(
          ErrorCode.SQL_SYNTAX_ERROR,
          "An interval's amount is quoted: INTERVAL '"
              + amountToken.text()
              + "' "
              + in.peek(1).text()
              + ", not INTERVAL "
              + amountToken.text()
              + " "
              + in.peek(1).text(),
          amountToken,
          "'" + amountToken.text() + "'");
    }
    long amount = in.number("interval amount");
    Token unitToken = in.peek();
    Clauses.TimeUnit unit =
        unitToken.kind() == Token.Kind.WORD ? Clauses.TimeUnit.parse(unitToken.text()) : null;
    if (unit == null
        && unitToken.kind() == Token.Kind.WORD
        && unitToken.upper().matches("(MONTH|YEAR|WEEK|MILLISECOND)S?")) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "An interval here is measured in SECOND, MINUTE, HOUR or DAY (as in Flink), not "
              + unitToken.upper()
              + "; for example INTERVAL '30' DAY",
          unitToken,
          "SECOND, MINUTE, HOUR or DAY");
    }
    if (unit == null) {
      throw in.expected("SECOND, MINUTE, HOUR or DAY");
    }
    in.next();
    if (amount < 1) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "An interval must be at least 1 " + unit.name(),
          unitToken,
          null);
    }
    return new Clauses.Interval(amount, unit);
  }

  /** REFRESH MODE | REFRESH_MODE, then = mode. */
  Clauses.RefreshMode refreshModeValue() {
    in.expectSymbol("=");
    Token t = in.peek();
    for (Clauses.RefreshMode mode : Clauses.RefreshMode.values()) {
      if (t.isWord(mode.name())) {
        in.next();
        return mode;
      }
    }
    throw in.expected("AUTO, CONTINUOUS or FULL");
  }

  /** = kind [ ( INTERVAL ... ) | ( timestamp ) ] after START_MODE. */
  Clauses.StartMode startModeValue() {
    in.expectSymbol("=");
    Token t = in.peek();
    Clauses.StartMode.Kind kind = null;
    for (Clauses.StartMode.Kind k : Clauses.StartMode.Kind.values()) {
      if (t.isWord(k.name())) {
        kind = k;
      }
    }
    if (kind == null) {
      throw in.expected(
          "FROM_BEGINNING, FROM_NOW, FROM_TIMESTAMP, RESUME_OR_FROM_BEGINNING, RESUME_OR_FROM_NOW or RESUME_OR_FROM_TIMESTAMP");
    }
    in.next();
    if (!in.atSymbol("(")) {
      if (kind.takesTimestamp()) {
        throw in.error(
            ErrorCode.INVALID_DEFINITION,
            kind.name()
                + " needs a timestamp: START_MODE = "
                + kind.name()
                + "('2026-01-01 00:00:00')",
            t,
            "'(' timestamp ')'");
      }
      return Clauses.StartMode.of(kind);
    }
    Token open = in.next();
    if (kind.takesOffset()) {
      Clauses.Interval offset = interval();
      in.expectSymbol(")");
      return new Clauses.StartMode(kind, offset, null);
    }
    if (kind.takesTimestamp()) {
      // The literal forms Flink writes: TIMESTAMP '...', TIMESTAMP WITHOUT TIME ZONE '...',
      // TIMESTAMP WITH LOCAL TIME ZONE '...' and TIMESTAMP_LTZ '...'. Each is read in UTC.
      if (in.acceptWord("TIMESTAMP")) {
        if (!in.acceptWords("WITHOUT", "TIME", "ZONE") && in.acceptWord("WITH")) {
          in.expectWords("LOCAL", "TIME", "ZONE");
        }
      } else {
        in.acceptWord("TIMESTAMP_LTZ");
      }
      Token ts = in.next();
      if (ts.kind() != Token.Kind.STRING && ts.kind() != Token.Kind.NUMBER) {
        throw in.error(
            ErrorCode.SQL_SYNTAX_ERROR,
            "Expected a timestamp ('2026-01-01 00:00:00') or epoch milliseconds but found "
                + ts.describe(),
            ts,
            "a timestamp");
      }
      in.expectSymbol(")");
      return new Clauses.StartMode(kind, null, ts.text());
    }
    throw in.error(ErrorCode.INVALID_DEFINITION, kind.name() + " takes no argument", open, null);
  }

  /** DISTRIBUTED already consumed: BY [HASH|RANGE] (cols) [INTO n BUCKETS] | INTO n BUCKETS. */
  Clauses.Distribution distribution() {
    if (in.acceptWord("INTO")) {
      return new Clauses.Distribution(null, List.of(), buckets());
    }
    in.expectWord("BY");
    Clauses.Distribution.Algorithm algorithm = null;
    if (in.acceptWord("HASH")) {
      algorithm = Clauses.Distribution.Algorithm.HASH;
    } else if (in.acceptWord("RANGE")) {
      algorithm = Clauses.Distribution.Algorithm.RANGE;
    }
    List<String> columns = in.identifierList("distribution column");
    Integer buckets = in.acceptWord("INTO") ? buckets() : null;
    return new Clauses.Distribution(algorithm, columns, buckets);
  }

  private Integer buckets() {
    Token at = in.peek();
    boolean negative = in.acceptSymbol("-");
    long n = in.number("bucket count");
    in.expectWord("BUCKETS");
    if (negative || n < 1 || n > 100_000) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "The bucket count must be between 1 and 100000, was " + (negative ? "-" : "") + n,
          at,
          null);
    }
    return (int) n;
  }
}
