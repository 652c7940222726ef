package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LineageGraphTest {

  private static final Lineage.Graph GRAPH =
      new Lineage.Graph(
          List.of(
              new Lineage.Node("c.d.f", "FLOW", "c", "d", "f", "RUNNING"),
              new Lineage.Node("c.d.p", "PIPELINE_TABLE", "c", "d", "p", "RUNNING"),
              new Lineage.Node("c.s.\"o\"", "SOURCE_TABLE", "c", "s", "\"o\"", null)),
          List.of(new Lineage.Edge("c.s.\"o\"", "c.d.f"), new Lineage.Edge("c.d.f", "c.d.p")));

  @Test
  void shouldDrawMermaidWithAShapePerKindAndEscapedLabels() {
    assertThat(GRAPH.mermaid())
        .isEqualTo(
            """
            flowchart LR
              n0(["c.d.f · RUNNING"])
              n1[["c.d.p · RUNNING"]]
              n2[("c.s.#quot;o#quot;")]
              n2 --> n0
              n0 --> n1
            """);
  }

  @Test
  void shouldWriteDotWithQuotedIds() {
    assertThat(GRAPH.dot())
        .contains("\"c.s.\\\"o\\\"\" [shape=cylinder")
        .contains("\"c.d.f\" -> \"c.d.p\";")
        .startsWith("digraph lineage {");
  }
}
