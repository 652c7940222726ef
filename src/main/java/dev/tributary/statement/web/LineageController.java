package dev.tributary.statement.web;

import dev.tributary.security.Access;
import dev.tributary.statement.Lineage;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** What feeds what, for people (Mermaid, DOT) and for tools (JSON). */
@RestController
@RequestMapping("/v1/lineage")
@Tag(name = "Lineage", description = "Sources, tables, flows and the edges between them")
class LineageController {

  static final MediaType MERMAID = MediaType.parseMediaType("text/vnd.mermaid");
  static final MediaType DOT = MediaType.parseMediaType("text/vnd.graphviz");

  private final Lineage lineage;

  LineageController(Lineage lineage) {
    this.lineage = lineage;
  }

  @GetMapping
  @Operation(
      operationId = "getLineage",
      summary = "The lineage graph: sources, materialized tables, pipeline tables and flows",
      description =
          "Nodes are named by their qualified names; an edge goes from what a query reads to what"
              + " it writes (a flow has an edge into its pipeline table). Only databases the caller"
              + " may read are shown, with what their queries read in other databases (its name"
              + " and type only, not its phase or pool); what reads them from a database the"
              + " caller may not read is left out. format=mermaid (or Accept:"
              + " text/vnd.mermaid) answers a Mermaid flowchart, format=dot Graphviz DOT.")
  @ApiResponse(
      responseCode = "200",
      description = "The graph, as JSON, Mermaid or DOT",
      content = {
        @Content(
            mediaType = "application/json",
            schema = @Schema(implementation = Lineage.Graph.class)),
        @Content(mediaType = "text/vnd.mermaid", schema = @Schema(type = "string")),
        @Content(mediaType = "text/vnd.graphviz", schema = @Schema(type = "string"))
      })
  ResponseEntity<?> lineage(
      @Parameter(description = "Only this catalog") @RequestParam(required = false) String catalog,
      @Parameter(description = "Only this database (with catalog)") @RequestParam(required = false)
          String database,
      @Parameter(description = "json (default), mermaid or dot") @RequestParam(required = false)
          String format,
      @RequestHeader(value = "Accept", required = false) String accept) {
    if (database != null && catalog == null) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "database needs catalog", Map.of("parameter", "database"));
    }
    Lineage.Graph graph =
        lineage.graph(
            n ->
                (catalog == null || catalog.equals(n.catalog()))
                    && (database == null || database.equals(n.database()))
                    && Access.sees(n.catalog(), n.database()));
    String chosen = format;
    if (chosen == null && accept != null) {
      chosen =
          accept.contains(MERMAID.toString())
              ? "mermaid"
              : accept.contains(DOT.toString()) ? "dot" : null;
    }
    if (chosen == null || chosen.equals("json")) {
      return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(graph);
    }
    return switch (chosen) {
      case "mermaid" -> ResponseEntity.ok().contentType(MERMAID).body(graph.mermaid());
      case "dot" -> ResponseEntity.ok().contentType(DOT).body(graph.dot());
      default ->
          throw new ApiException(
              ErrorCode.VALIDATION_FAILED,
              "format must be json, mermaid or dot, not '" + chosen + "'",
              Map.of("parameter", "format"));
    };
  }
}
