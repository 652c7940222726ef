package dev.tributary.table.web;

import dev.tributary.plan.ChangePlan;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.table.MaterializedTableVersion;
import dev.tributary.table.web.TableApi.ExpectationCount;
import dev.tributary.table.web.TableApi.Metadata;
import dev.tributary.table.web.TableApi.PreviewRow;
import dev.tributary.table.web.TableApi.SpecRequest;
import dev.tributary.table.web.TableApi.SpecResponse;
import dev.tributary.table.web.TableApi.VersionResponse;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The shapes of the materialized-table resources: what the API reads and answers. Their simple
 * names are the schema names of the OpenAPI document.
 */
final class TableApi {

  private TableApi() {}

  record PutRequest(Map<String, Object> metadata, SpecRequest spec, Boolean dryRun) {}

  /** The answer of a dry run: the plan, nothing stored or touched. */
  @Schema(name = "TablePlan", description = "What a change would do; nothing was stored")
  record PlanResponse(boolean dryRun, ChangePlan plan) {}

  record SpecRequest(String statement, Map<String, Object> definition, Boolean stopped) {}

  @Schema(
      name = "MaterializedTable",
      description =
          "A materialized table, pipeline table or flow (kind): what was declared (spec) and what"
              + " the reconciler observes (status)")
  record Resource(
      String apiVersion,
      String kind,
      Metadata metadata,
      SpecResponse spec,
      TableStatusView status) {}

  record Metadata(
      String catalog,
      String database,
      String name,
      String uid,
      long generation,
      long resourceVersion,
      Instant createdAt,
      Instant updatedAt) {}

  record SpecResponse(String statement, MaterializedTableDefinition definition, boolean stopped) {}

  record RefreshRequest(Map<String, String> partition) {}

  record VersionResponse(
      long version,
      String qualifiedName,
      String statement,
      Instant createdAt,
      String outcome,
      String failure) {
    static VersionResponse of(MaterializedTableVersion v) {
      return new VersionResponse(
          v.version(),
          v.getQualifiedName(),
          v.getDefinition(),
          v.getCreatedAt(),
          v.getOutcome(),
          v.getFailure());
    }
  }

  record PreviewRow(int partition, long offset, Instant timestamp, JsonNode key, JsonNode value) {}

  record PreviewResponse(String topic, List<PreviewRow> rows) {}

  /**
   * One expectation of one writer of the table (a flow, or the materialized table's job: flow
   * null): rows that passed and failed it, as its jobs' counters were last read ({@code asOf}); all
   * three null while no counter was ever read (an INSERT ONCE run that finished between two reads
   * of the JobManager's metrics is one: its counters are gone with its tasks).
   */
  record ExpectationCount(
      String flow,
      String expectation,
      String expression,
      String onViolation,
      Long passedRecords,
      Long failedRecords,
      Instant asOf) {}

  record ExpectationsResponse(String table, List<ExpectationCount> expectations) {}

  record FullRefreshResponse(String table, String message) {}

  /** What a suspend or resume of one flow did: REQUESTED, or UNCHANGED when it was so already. */
  record FlowChangeResponse(String flow, String outcome, String message) {}
}
