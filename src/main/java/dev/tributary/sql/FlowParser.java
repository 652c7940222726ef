package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The flow grammar: CREATE FLOW name [COMMENT 'c'] AS INSERT [ONCE] INTO table [BY NAME] query, and
 * AS AUTO CDC [ONCE] INTO table FROM source KEYS ... SEQUENCE BY ... (Databricks' pipelines), plus
 * the flow query of CREATE TABLE ... FLOW, whose Databricks {@code STREAM(t)} becomes {@code t}.
 */
final class FlowParser {

  private final Cursor in;

  FlowParser(Cursor in) {
    this.in = in;
  }

  /**
   * CREATE FLOW already consumed: name [COMMENT 'c'] AS INSERT [ONCE] INTO [ONCE] table [BY NAME]
   * query (Databricks writes ONCE after INTO; before it is accepted too).
   */
  Statement createFlow() {
    ObjectName name = in.objectName("flow name");
    String comment = in.acceptWord("COMMENT") ? in.comment() : null;
    in.expectWord("AS");
    if (in.acceptWords("AUTO", "CDC")) {
      return autoCdc(name, comment, in.acceptWord("ONCE"));
    }
    in.expectWord("INSERT");
    boolean once = in.acceptWord("ONCE");
    in.expectWord("INTO");
    once |= onceBeforeTable();
    ObjectName target = in.objectName("table name");
    boolean byName = in.acceptWords("BY", "NAME");
    refuseReplace();
    String query = flowQuery(in);
    return new Statement.CreateFlow(name, comment, target, null, once, byName, query);
  }

  /**
   * ONCE after INTO, as some of Databricks' pages write it, when a table name follows; a table
   * named {@code once} ({@code INTO once BY NAME SELECT ...}) is a name.
   */
  private boolean onceBeforeTable() {
    if (!in.atWord("ONCE")) {
      return false;
    }
    Token next = in.peek(1);
    boolean name =
        (next.kind() == Token.Kind.WORD || next.kind() == Token.Kind.QUOTED_IDENTIFIER)
            && !(next.isWord("BY") && in.peek(2).isWord("NAME"))
            && !next.isWord("SELECT")
            && !next.isWord("WITH")
            && !next.isWord("REPLACE");
    if (name) {
      in.next();
    }
    return name;
  }

  /**
   * Databricks' REPLACE USING (columns) [SEQUENCE BY column] and REPLACE WHERE condition, between
   * BY NAME and the query: parsed, and refused at the clause, since a flow appends to its table's
   * topic and cannot take back the rows a later snapshot replaces.
   */
  private void refuseReplace() {
    Token at = in.peek();
    if (in.acceptWords("REPLACE", "USING")) {
      in.identifierList("column");
      if (in.acceptWords("SEQUENCE", "BY")) {
        in.identifier("sequence column");
      }
      throw in.error(
          ErrorCode.UNSUPPORTED_CLAUSE,
          "REPLACE USING is not supported: a flow appends rows to its table's Kafka topic and"
              + " cannot remove the rows of a key that a later snapshot replaces; for the latest"
              + " row of each key use AUTO CDC INTO ... KEYS (...) SEQUENCE BY ...",
          at,
          null);
    }
    if (in.acceptWords("REPLACE", "WHERE")) {
      throw in.error(
          ErrorCode.UNSUPPORTED_CLAUSE,
          "REPLACE WHERE is not supported: a flow appends rows to its table's Kafka topic and"
              + " cannot remove the rows a condition selects",
          at,
          null);
    }
  }

  /**
   * A flow's query: a SELECT (or WITH ... SELECT), verbatim except for Databricks' {@code
   * STREAM(t)} and {@code STREAM t} after FROM, JOIN or a comma, which become {@code t}: a Kafka
   * table is always read as a stream.
   */
  static String flowQuery(Cursor in) {
    if (!in.atWord("SELECT") && !in.atWord("WITH") && !in.atSymbol("(")) {
      throw in.expected("the flow's query (SELECT ...)");
    }
    int mark = in.mark();
    String text = in.captureUntil(t -> false, false, "query");
    List<Token> tokens = in.tokensSince(mark);
    int base = tokens.get(0).start();
    boolean[] cut = new boolean[text.length()];
    for (int i = 1; i + 1 < tokens.size(); i++) {
      Token previous = tokens.get(i - 1);
      Token stream = tokens.get(i);
      Token next = tokens.get(i + 1);
      boolean afterTableKeyword =
          previous.isWord("FROM") || previous.isWord("JOIN") || previous.isSymbol(",");
      if (!stream.isWord("STREAM") || !afterTableKeyword) {
        continue;
      }
      if (next.isSymbol("(")) {
        int depth = 0;
        for (int j = i + 1; j < tokens.size(); j++) {
          depth += tokens.get(j).isSymbol("(") ? 1 : tokens.get(j).isSymbol(")") ? -1 : 0;
          if (depth == 0) {
            cutOut(cut, tokens.get(j).start() - base, tokens.get(j).end() - base);
            break;
          }
        }
        cutOut(cut, stream.start() - base, next.end() - base);
      } else if (next.isIdentifier()) {
        cutOut(cut, stream.start() - base, next.start() - base);
      }
    }
    StringBuilder query = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      if (!cut[i]) {
        query.append(text.charAt(i));
      }
    }
    return query.toString();
  }

  private static void cutOut(boolean[] cut, int from, int to) {
    for (int i = Math.max(0, from); i < Math.min(cut.length, to); i++) {
      cut[i] = true;
    }
  }

  /** AUTO CDC consumed; INTO table FROM source KEYS ... SEQUENCE BY ... and the other clauses. */
  private Statement autoCdc(ObjectName name, String comment, boolean once) {
    in.expectWord("INTO");
    ObjectName target = in.objectName("table name");
    in.expectWord("FROM");
    boolean parenthesized = false;
    if (in.acceptWord("STREAM")) {
      parenthesized = in.acceptSymbol("(");
    }
    ObjectName source = in.objectName("source table");
    if (parenthesized) {
      in.expectSymbol(")");
    }
    List<String> keys = null;
    String deleteWhen = null;
    String sequenceBy = null;
    List<String> columns = List.of();
    List<String> except = List.of();
    int scdType = 1;
    boolean ignoreNullUpdates = false;
    List<String> trackOn = List.of();
    List<String> trackExcept = List.of();
    Token trackAt = null;
    Set<String> seen = new HashSet<>();
    while (!in.atEnd()) {
      Token clause = in.peek();
      String clauseName;
      if (in.acceptWord("KEYS")) {
        clauseName = "KEYS";
        keys = in.identifierList("key column");
      } else if (in.acceptWords("IGNORE", "NULL", "UPDATES")) {
        clauseName = "IGNORE NULL UPDATES";
        ignoreNullUpdates = true;
      } else if (in.acceptWords("APPLY", "AS")) {
        if (in.acceptWord("TRUNCATE")) {
          throw in.error(
              ErrorCode.UNSUPPORTED_CLAUSE,
              "APPLY AS TRUNCATE WHEN is not supported: a truncate cannot be written to a Kafka"
                  + " topic as one record",
              clause,
              null);
        }
        in.expectWords("DELETE", "WHEN");
        clauseName = "APPLY AS DELETE WHEN";
        deleteWhen =
            in.captureUntil(
                t ->
                    t.isWord("SEQUENCE")
                        || t.isWord("APPLY")
                        || t.isWord("COLUMNS")
                        || t.isWord("STORED")
                        || t.isWord("TRACK")
                        || t.isWord("KEYS")
                        || t.isWord("IGNORE"),
                false,
                "delete condition");
      } else if (in.acceptWords("SEQUENCE", "BY")) {
        clauseName = "SEQUENCE BY";
        sequenceBy = in.identifier("sequence column");
      } else if (in.acceptWord("COLUMNS")) {
        clauseName = "COLUMNS";
        if (in.acceptSymbol("*")) {
          in.expectWord("EXCEPT");
          except = in.identifierList("column");
        } else {
          columns = in.identifierList("column");
        }
      } else if (in.acceptWords("STORED", "AS")) {
        clauseName = "STORED AS";
        in.expectWords("SCD", "TYPE");
        Token type = in.next();
        if (!type.text().equals("1") && !type.text().equals("2")) {
          throw in.error(ErrorCode.SQL_SYNTAX_ERROR, "Expected SCD TYPE 1 or 2", type, "1 or 2");
        }
        scdType = Integer.parseInt(type.text());
      } else if (in.acceptWords("TRACK", "HISTORY")) {
        clauseName = "TRACK HISTORY ON";
        in.expectWord("ON");
        trackAt = clause;
        if (in.acceptSymbol("*")) {
          in.expectWord("EXCEPT");
          trackExcept = in.identifierList("column");
        } else {
          trackOn = in.identifierList("column");
        }
      } else {
        throw in.expected(
            "KEYS, APPLY AS DELETE WHEN, SEQUENCE BY, COLUMNS, STORED AS or the end of the"
                + " statement");
      }
      if (!seen.add(clauseName)) {
        throw in.error(ErrorCode.INVALID_DEFINITION, clauseName + " is given twice", clause, null);
      }
    }
    if (keys == null || sequenceBy == null) {
      throw in.expected(keys == null ? "KEYS (column, ...)" : "SEQUENCE BY column");
    }
    if (trackAt != null && scdType != 2) {
      throw in.error(
          ErrorCode.INVALID_DEFINITION,
          "TRACK HISTORY ON needs STORED AS SCD TYPE 2: with SCD TYPE 1 there is no history",
          trackAt,
          null);
    }
    Statement.Cdc cdc =
        new Statement.Cdc(
            source,
            keys,
            deleteWhen,
            sequenceBy,
            columns,
            except,
            scdType,
            ignoreNullUpdates,
            trackOn,
            trackExcept);
    return new Statement.CreateFlow(
        name, comment, target, null, once, true, "SELECT * FROM " + source.sql(), cdc);
  }
}
