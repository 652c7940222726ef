package dev.tributary.table.web;

import dev.tributary.system.ApiVersion;
import dev.tributary.table.Freshness;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import dev.tributary.table.web.TableApi.Metadata;
import dev.tributary.table.web.TableApi.Resource;
import dev.tributary.table.web.TableApi.SpecResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

/** A table row as the resource the API answers: metadata, spec and status, with its ETag. */
@Component
class TableResources {

  private final MaterializedTableService tables;
  private final Freshness freshness;

  TableResources(MaterializedTableService tables, Freshness freshness) {
    this.tables = tables;
    this.freshness = freshness;
  }

  Resource of(MaterializedTable t) {
    TableSpec spec = tables.spec(t);
    Metadata metadata =
        new Metadata(
            t.getDatabase().getCatalog().getName(),
            t.getDatabase().getName(),
            t.getName(),
            t.getId().toString(),
            t.getGeneration(),
            t.getResourceVersion(),
            t.getCreatedAt(),
            t.getUpdatedAt());
    SpecResponse specResponse =
        new SpecResponse(
            MaterializedTableService.showCreate(t.objectName(), spec),
            spec.definition(),
            spec.stopped());
    return new Resource(
        ApiVersion.CURRENT,
        switch (spec.kind()) {
          case MATERIALIZED_TABLE -> "MaterializedTable";
          case PIPELINE_TABLE -> "PipelineTable";
          case FLOW -> "Flow";
        },
        metadata,
        specResponse,
        TableStatusView.of(t, freshness.of(t, spec)));
  }

  static ResponseEntity<Resource> withEtag(HttpStatus status, Resource resource) {
    return ResponseEntity.status(status)
        .eTag("\"" + resource.metadata().resourceVersion() + "\"")
        .body(resource);
  }
}
