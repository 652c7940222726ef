package dev.tributary.statement;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.catalog.Catalog;
import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.security.Access;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.QueryReferences;
import dev.tributary.sql.TableOptions;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * What feeds what: source tables, materialized tables, pipeline tables and their flows, and an edge
 * from each table a query reads to what the query writes (a materialized table, or a flow, which
 * writes its pipeline table; the flow of CREATE TABLE ... FLOW is its table's own). GET
 * /v1/lineage, the status page and SHOW MATERIALIZED TABLE all read this graph.
 */
@Component
public class Lineage {

  private final MaterializedTableService tables;
  private final CatalogService catalogs;

  Lineage(MaterializedTableService tables, CatalogService catalogs) {
    this.tables = tables;
    this.catalogs = catalogs;
  }

  /**
   * A node: its qualified name is its id. {@code phase} is null for a source table; {@code
   * computePool}, the pool a materialized table is placed on, is null for the other kinds.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Node(
      String id,
      String type,
      String catalog,
      String database,
      String name,
      String phase,
      String computePool) {

    public Node(
        String id, String type, String catalog, String database, String name, String phase) {
      this(id, type, catalog, database, name, phase, null);
    }
  }

  /** {@code from} is read (or written, for a flow into its table) to make {@code to}. */
  public record Edge(String from, String to) {}

  /**
   * The graph: nodes by name; edges by the name of the table they lead to, then as its queries read
   * them.
   */
  public record Graph(List<Node> nodes, List<Edge> edges) {

    /** As a Mermaid flowchart, left to right; sources are cylinders, flows stadiums. */
    public String mermaid() {
      StringBuilder out = new StringBuilder("flowchart LR\n");
      Map<String, String> ids = new LinkedHashMap<>();
      for (Node n : nodes) {
        String id = "n" + ids.size();
        ids.put(n.id(), id);
        String label =
            n.id().replace("\"", "#quot;") + (n.phase() == null ? "" : " · " + n.phase());
        String shape =
            switch (n.type()) {
              case "SOURCE_TABLE" -> "[(\"" + label + "\")]";
              case "FLOW" -> "([\"" + label + "\"])";
              case "PIPELINE_TABLE" -> "[[\"" + label + "\"]]";
              default -> "[\"" + label + "\"]";
            };
        out.append("  ").append(id).append(shape).append('\n');
      }
      for (Edge e : edges) {
        out.append("  ").append(ids.get(e.from())).append(" --> ").append(ids.get(e.to()));
        out.append('\n');
      }
      return out.toString();
    }

    /** As Graphviz DOT. */
    public String dot() {
      StringBuilder out = new StringBuilder("digraph lineage {\n  rankdir=LR;\n");
      for (Node n : nodes) {
        String shape =
            switch (n.type()) {
              case "SOURCE_TABLE" -> "cylinder";
              case "FLOW" -> "oval";
              case "PIPELINE_TABLE" -> "box3d";
              default -> "box";
            };
        out.append("  ").append(quoted(n.id())).append(" [shape=").append(shape);
        out.append(", label=").append(quoted(label(n))).append("];\n");
      }
      for (Edge e : edges) {
        out.append("  ").append(quoted(e.from())).append(" -> ").append(quoted(e.to()));
        out.append(";\n");
      }
      return out.append("}\n").toString();
    }

    private static String label(Node n) {
      return n.phase() == null ? n.id() : n.id() + "\n" + n.phase();
    }

    private static String quoted(String s) {
      return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }

    public Node node(String id) {
      return nodes.stream().filter(n -> n.id().equals(id)).findFirst().orElse(null);
    }
  }

  /**
   * The graph of the databases {@code shown} accepts, as the caller may see it: with what their
   * tables read in other databases (so a table over another database's source shows where its rows
   * come from: the names are in its own query), but without what reads them from a database the
   * caller may not see, whose tables' names are not the caller's to learn; and a node of such a
   * database has its name and type only, not its owners' phase and pool.
   */
  @Transactional(readOnly = true)
  public Graph graph(Predicate<ObjectName> shown) {
    // Only the databases the caller may see are loaded: another database's table appears when a
    // query of theirs reads it (looked up by name, its type only), and what reads theirs from
    // elsewhere is not loaded, so not shown.
    return everything(shown, Access::sees);
  }

  /**
   * The graph of the databases {@code shown} accepts, with the nodes their edges reach in other
   * databases either way, of what the databases {@code loaded} accepts hold: their sources, tables
   * and flows, and what their queries read elsewhere, looked up by name. The cost is that of the
   * databases loaded, not of the store.
   */
  private Graph everything(Predicate<ObjectName> shown, BiPredicate<String, String> loaded) {
    Map<String, Node> known = new LinkedHashMap<>();
    for (Catalog catalog : catalogs.catalogs()) {
      for (CatalogDatabase db : catalogs.databases(catalog.getName())) {
        if (!loaded.test(catalog.getName(), db.getName())) {
          continue;
        }
        for (SourceTable source : catalogs.sourceTables(catalog.getName(), db.getName())) {
          put(known, node(source.objectName(), "SOURCE_TABLE", null));
        }
      }
    }
    List<MaterializedTable> rows = new ArrayList<>(tables.inDatabases(loaded));
    rows.sort((a, b) -> a.qualifiedName().compareTo(b.qualifiedName()));
    for (MaterializedTable table : rows) {
      TableSpec spec = tables.spec(table);
      put(
          known,
          new Node(
              table.objectName().toString(),
              spec.kind().name(),
              table.objectName().catalog(),
              table.objectName().database(),
              table.objectName().name(),
              phase(table),
              spec.definition() == null ? null : TableOptions.pool(spec.definition().options())));
    }
    Set<Edge> edges = new LinkedHashSet<>();
    for (MaterializedTable table : rows) {
      ObjectName self = table.objectName();
      TableSpec spec = tables.spec(table);
      List<String> queries = new ArrayList<>();
      if (spec.kind() == TableSpec.Kind.MATERIALIZED_TABLE) {
        queries.add(spec.definition().query());
      } else {
        if (spec.pipeline() != null && spec.pipeline().flow() != null) {
          queries.add(spec.pipeline().flow().query()); // the table's own flow
        }
        spec.flows().forEach(f -> queries.add(f.query())); // stored before flows had rows
      }
      queries.forEach(q -> reads(q, self).forEach(read -> edges.add(edge(known, read, self))));
      for (MaterializedTable flow : tables.flows(table)) {
        if (flow.getName().equals(table.getName())) {
          continue; // the table's own flow, read above
        }
        ObjectName flowName = flow.objectName();
        put(known, node(flowName, "FLOW", phase(flow)));
        for (ObjectName read : reads(tables.spec(flow).flowStatement().query(), self)) {
          edges.add(edge(known, read, flowName));
        }
        edges.add(edge(known, flowName, self));
      }
    }
    Predicate<String> inScope = id -> shown.test(name(known.get(id)));
    List<Edge> kept =
        edges.stream().filter(e -> inScope.test(e.from()) || inScope.test(e.to())).toList();
    Set<String> reached = new LinkedHashSet<>();
    kept.forEach(
        e -> {
          reached.add(e.from());
          reached.add(e.to());
        });
    for (String id : reached) {
      Node node = known.get(id);
      if (node.type().equals("UNKNOWN") && !loaded.test(node.catalog(), node.database())) {
        put(known, lookedUp(name(node)));
      }
    }
    List<Node> nodes =
        known.values().stream()
            .filter(n -> reached.contains(n.id()) || shown.test(name(n)))
            .sorted((a, b) -> a.id().compareTo(b.id()))
            .toList();
    return new Graph(nodes, kept);
  }

  /**
   * The tables whose queries (or flows) read {@code name}, by qualified name: what keeps a source
   * table from being dropped.
   */
  @Transactional(readOnly = true)
  public List<String> readersOf(ObjectName name) {
    Graph graph = everything();
    Set<String> readers = new TreeSet<>();
    for (Edge e : graph.edges()) {
      if (!e.from().equals(name.toString())) {
        continue;
      }
      if ("FLOW".equals(graph.node(e.to()).type())) {
        graph.edges().stream()
            .filter(w -> w.from().equals(e.to()))
            .forEach(w -> readers.add(w.to()));
      } else {
        readers.add(e.to());
      }
    }
    return List.copyOf(readers);
  }

  /** The graph of everything, whoever asks: what a drop must not break. */
  private Graph everything() {
    return everything(n -> true, (catalog, database) -> true);
  }

  /**
   * A table or source of a database not loaded, by its name, with its type only (UNKNOWN when it is
   * neither): its phase and pool are its owners', and the caller may not see that database.
   */
  private Node lookedUp(ObjectName name) {
    String type =
        tables
            .find(name)
            .map(t -> tables.spec(t).kind().name())
            .orElseGet(
                () -> catalogs.findSourceTable(name).isPresent() ? "SOURCE_TABLE" : "UNKNOWN");
    return node(name, type, null);
  }

  /**
   * SHOW MATERIALIZED TABLE's rows for {@code table}: what it reads, the flows that write it, and
   * what reads it, each with its type.
   */
  @Transactional(readOnly = true)
  public List<List<Object>> rows(MaterializedTable table) {
    Graph graph = graph(n -> true); // as the caller may see it
    String self = table.qualifiedName();
    List<List<Object>> reads = new ArrayList<>();
    List<List<Object>> writers = new ArrayList<>();
    List<List<Object>> readers = new ArrayList<>();
    for (Edge e : graph.edges()) {
      if (e.to().equals(self)) {
        Node from = graph.node(e.from());
        if ("FLOW".equals(from.type())) {
          writers.add(List.of("written_by", from.id(), from.type()));
          for (Edge in : graph.edges()) {
            if (in.to().equals(from.id())) {
              reads.add(List.of("reads", in.from(), graph.node(in.from()).type()));
            }
          }
        } else {
          reads.add(List.of("reads", from.id(), from.type()));
        }
      } else if (e.from().equals(self)) {
        Node to = graph.node(e.to());
        readers.add(List.of("read_by", to.id(), to.type()));
      }
    }
    List<List<Object>> rows = new ArrayList<>(reads.stream().distinct().toList());
    rows.addAll(writers);
    rows.addAll(readers.stream().distinct().toList());
    return rows;
  }

  /** An edge, adding a node of type UNKNOWN for an end that is no table the service knows. */
  private static Edge edge(Map<String, Node> known, ObjectName from, ObjectName to) {
    known.computeIfAbsent(from.toString(), id -> node(from, "UNKNOWN", null));
    known.computeIfAbsent(to.toString(), id -> node(to, "UNKNOWN", null));
    return new Edge(from.toString(), to.toString());
  }

  private static void put(Map<String, Node> known, Node node) {
    known.put(node.id(), node);
  }

  private static ObjectName name(Node node) {
    return new ObjectName(node.catalog(), node.database(), node.name());
  }

  private static String phase(MaterializedTable table) {
    return table.getPhase().name();
  }

  private static List<ObjectName> reads(String query, ObjectName self) {
    return QueryReferences.tables(query).stream()
        .map(n -> n.resolve(self.catalog(), self.database()))
        .distinct()
        .toList();
  }

  private static Node node(ObjectName name, String type, String phase) {
    return new Node(name.toString(), type, name.catalog(), name.database(), name.name(), phase);
  }
}
