package dev.tributary.statement;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.catalog.Catalog;
import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.QueryReferences;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /** A node: its qualified name is its id. {@code phase} is null for a source table. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Node(
      String id, String type, String catalog, String database, String name, String phase) {}

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
   * The graph of the databases {@code shown} accepts, with the nodes their edges reach in other
   * databases (so a table over another database's source shows where its rows come from).
   */
  @Transactional(readOnly = true)
  public Graph graph(Predicate<ObjectName> shown) {
    Map<String, Node> nodes = new LinkedHashMap<>();
    Set<Edge> edges = new LinkedHashSet<>();
    List<Node> all = new ArrayList<>();
    for (Catalog catalog : catalogs.catalogs()) {
      for (CatalogDatabase db : catalogs.databases(catalog.getName())) {
        for (SourceTable source : catalogs.sourceTables(catalog.getName(), db.getName())) {
          all.add(node(source.objectName(), "SOURCE_TABLE", null));
        }
      }
    }
    Map<String, Node> known = new LinkedHashMap<>();
    all.forEach(n -> known.put(n.id(), n));
    List<MaterializedTable> rows = new ArrayList<>(tables.all());
    rows.sort((a, b) -> a.qualifiedName().compareTo(b.qualifiedName()));
    for (MaterializedTable table : rows) {
      TableSpec spec = tables.spec(table);
      known.put(
          table.qualifiedName(),
          node(table.objectName(), spec.kind().name(), table.getPhase().name()));
    }
    for (MaterializedTable table : rows) {
      ObjectName self = table.objectName();
      TableSpec spec = tables.spec(table);
      boolean inScope = shown.test(self);
      if (spec.kind() == TableSpec.Kind.MATERIALIZED_TABLE) {
        for (ObjectName read : reads(spec.definition().query(), self)) {
          if (inScope || shown.test(read)) {
            edge(nodes, edges, known, read, self, "UNKNOWN");
          }
        }
        if (inScope) {
          nodes.putIfAbsent(self.toString(), known.get(self.toString()));
        }
        continue;
      }
      if (inScope) {
        nodes.putIfAbsent(self.toString(), known.get(self.toString()));
      }
      if (spec.pipeline() != null && spec.pipeline().flow() != null) {
        for (ObjectName read : reads(spec.pipeline().flow().query(), self)) {
          if (inScope || shown.test(read)) {
            edge(nodes, edges, known, read, self, "UNKNOWN");
          }
        }
      }
      for (MaterializedTable flow : tables.flows(table)) {
        if (flow.getName().equals(table.getName())) {
          continue; // the table's own flow, read above
        }
        ObjectName flowName = flow.objectName();
        Node flowNode = node(flowName, "FLOW", flow.getPhase().name());
        known.put(flowName.toString(), flowNode);
        if (!inScope) {
          continue;
        }
        nodes.putIfAbsent(flowName.toString(), flowNode);
        for (ObjectName read : reads(tables.spec(flow).flowStatement().query(), self)) {
          edge(nodes, edges, known, read, flowName, "UNKNOWN");
        }
        edge(nodes, edges, known, flowName, self, "FLOW");
      }
    }
    for (Node n : all) {
      ObjectName name = new ObjectName(n.catalog(), n.database(), n.name());
      if (shown.test(name)) {
        nodes.putIfAbsent(n.id(), n);
      }
    }
    List<Node> sorted = new ArrayList<>(nodes.values());
    sorted.sort((a, b) -> a.id().compareTo(b.id()));
    return new Graph(sorted, List.copyOf(edges));
  }

  /** The graph of everything. */
  public Graph graph() {
    return graph(n -> true);
  }

  /**
   * SHOW MATERIALIZED TABLE's rows for {@code table}: what it reads, the flows that write it, and
   * what reads it, each with its type.
   */
  @Transactional(readOnly = true)
  public List<List<Object>> rows(MaterializedTable table) {
    Graph graph = graph();
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

  private static void edge(
      Map<String, Node> nodes,
      Set<Edge> edges,
      Map<String, Node> known,
      ObjectName from,
      ObjectName to,
      String unknownType) {
    Node fromNode = known.getOrDefault(from.toString(), node(from, unknownType, null));
    nodes.putIfAbsent(from.toString(), fromNode);
    nodes.putIfAbsent(to.toString(), known.getOrDefault(to.toString(), node(to, "UNKNOWN", null)));
    edges.add(new Edge(from.toString(), to.toString()));
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
