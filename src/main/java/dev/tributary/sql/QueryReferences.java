package dev.tributary.sql;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tables a query reads. Without a parse tree they are found lexically: names after FROM and
 * JOIN, after the commas of a FROM list (at the same nesting depth), inside subqueries and inside
 * STREAM(...). It does not understand the query, so it also reports CTE names; callers resolve
 * names against known tables.
 */
public final class QueryReferences {

  private static final Set<String> END_OF_FROM =
      Set.of(
          "WHERE",
          "GROUP",
          "ORDER",
          "HAVING",
          "LIMIT",
          "UNION",
          "EXCEPT",
          "INTERSECT",
          "WINDOW",
          "SELECT");

  private QueryReferences() {}

  /**
   * What recent queries read, by their text, from Flink's parse tree. The lineage reads every
   * stored query for each graph (the API's, the status page's, SHOW MATERIALIZED TABLE's), and a
   * parse takes about 80 us here: 0.8 s a graph with 10,000 tables, where QueryAnalysis keeps only
   * the last 256 trees. Kept: the names, not the trees, for texts up to 4 KB, the last 20,000 texts
   * (at most 80 MB of text, a few MB for typical queries). A query that does not parse is not kept
   * (its lexical reading is cheap).
   */
  private static final int CACHED = 20_000;

  private static final int CACHED_TEXT_CHARS = 4 * 1024;

  private static final Map<String, List<ObjectName>> READS =
      Collections.synchronizedMap(
          new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, List<ObjectName>> eldest) {
              return size() > CACHED;
            }
          });

  /**
   * The tables the query reads: from Flink's parse tree ({@link QueryAnalysis}) when the query
   * parses, else found lexically as described above.
   */
  public static List<ObjectName> tables(String query) {
    List<ObjectName> kept = READS.get(query);
    if (kept != null) {
      return kept;
    }
    Optional<List<ObjectName>> parsed = QueryAnalysis.tables(query);
    if (parsed.isEmpty()) {
      return lexical(query);
    }
    if (query.length() <= CACHED_TEXT_CHARS) {
      READS.put(query, parsed.get());
    }
    return parsed.get();
  }

  static List<ObjectName> lexical(String query) {
    List<Token> tokens;
    try {
      tokens = new Lexer(new Source(query)).tokenize();
    } catch (SqlException e) {
      return List.of();
    }
    Set<ObjectName> found = new LinkedHashSet<>();
    Set<Integer> fromDepths = new HashSet<>();
    int depth = 0;
    for (int i = 0; i < tokens.size(); i++) {
      Token t = tokens.get(i);
      if (t.isSymbol("(")) {
        depth++;
      } else if (t.isSymbol(")")) {
        fromDepths.remove(depth);
        depth--;
      } else if (t.kind() == Token.Kind.WORD && END_OF_FROM.contains(t.upper())) {
        fromDepths.remove(depth);
      } else if (t.isWord("FROM")
          || t.isWord("JOIN")
          || (t.isSymbol(",") && fromDepths.contains(depth))) {
        if (!t.isSymbol(",")) {
          fromDepths.add(depth);
        }
        ObjectName table = tableAt(tokens, i + 1);
        if (table != null) {
          found.add(table);
        }
      }
    }
    return new ArrayList<>(found);
  }

  /** The table name starting at {@code i}, or null when a subquery or table function is there. */
  private static ObjectName tableAt(List<Token> tokens, int i) {
    if (tokens.get(i).isWord("STREAM")
        || tokens.get(i).isWord("TABLE")
        || tokens.get(i).isWord("LATERAL")) {
      i++;
      if (tokens.get(i).isSymbol("(")) {
        i++;
      }
    }
    Token t = tokens.get(i);
    if (!t.isIdentifier() || t.isWord("SELECT") || t.isWord("UNNEST")) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    parts.add(t.value());
    while (tokens.get(i + 1).isSymbol(".") && tokens.get(i + 2).isIdentifier()) {
      parts.add(tokens.get(i + 2).value());
      i += 2;
    }
    if (tokens.get(i + 1).isSymbol("(") || parts.size() > 3) {
      return null; // a table function such as read_files(...)
    }
    return switch (parts.size()) {
      case 1 -> ObjectName.of(parts.get(0));
      case 2 -> new ObjectName(null, parts.get(0), parts.get(1));
      default -> new ObjectName(parts.get(0), parts.get(1), parts.get(2));
    };
  }
}
