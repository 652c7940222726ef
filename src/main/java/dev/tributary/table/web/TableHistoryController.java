package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.table.TableHistory;
import dev.tributary.table.web.TableApi.VersionResponse;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.UUID;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** A table's history, which outlives it: its versions and its events, as a list or live. */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class TableHistoryController {

  /** One operation in the API document: the list, and with follow=true the live stream. */
  static final String EVENTS_DESCRIPTION =
      "Without follow, the table's event log as JSON. With follow=true, a text/event-stream of"
          + " every event of the table and its flows once, in order: those already written (after"
          + " Last-Event-ID or the after parameter when given), then each as it is written. Each"
          + " SSE event is named 'event', its id is the event's id and its data the event as JSON"
          + " with the table or flow it is about.";

  private final TableHistory history;
  private final EventStreams streams;

  TableHistoryController(TableHistory history, EventStreams streams) {
    this.history = history;
    this.streams = streams;
  }

  @GetMapping("/{name}/versions")
  @Operation(
      operationId = "listTableVersions",
      summary = "Every definition the table has had; still answers after the table is dropped",
      description =
          "Oldest first; each version holds the statement that defined it and how applying it ended.")
  Page<VersionResponse> versions(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    UUID table = history.historyOf(new ObjectName(catalog, database, name));
    return Paging.page(
        "versions:" + table,
        history.versions(table).stream().map(VersionResponse::of).toList(),
        v -> Long.toString(v.version()),
        Paging.BY_NUMBER,
        limit,
        pageToken);
  }

  @GetMapping("/{name}/versions/{version}")
  @Operation(
      operationId = "getTableVersion",
      summary = "One version, with its SHOW CREATE text",
      description = "One definition as it was stored, with SHOW CREATE text.")
  VersionResponse version(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable long version) {
    Access.require(Role.VIEWER, catalog, database);
    return history.versions(history.historyOf(new ObjectName(catalog, database, name))).stream()
        .filter(v -> v.version() == version)
        .findFirst()
        .map(VersionResponse::of)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Version "
                        + version
                        + " of "
                        + catalog
                        + "."
                        + database
                        + "."
                        + name
                        + " does not exist"));
  }

  @GetMapping("/{name}/events")
  @Operation(
      operationId = "listTableEvents",
      summary =
          "What the reconciler did to the table, and why (follow=true: live, as Server-Sent"
              + " Events); still answers after the table is dropped",
      description = EVENTS_DESCRIPTION)
  Page<EventStreams.StreamedEvent> events(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(description = "true: a live text/event-stream instead of the list")
          @RequestParam(required = false)
          Boolean follow,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    ObjectName table = new ObjectName(catalog, database, name);
    UUID id = history.historyOf(table);
    String list = "events:" + id;
    int size = Paging.limit(limit);
    Long after = Paging.afterNumber(list, pageToken);
    return Paging.fetched(
        list,
        history.eventsAfter(List.of(id), after == null ? 0 : after, size + 1).stream()
            .map(e -> EventStreams.StreamedEvent.of(e, table.toString()))
            .toList(),
        size,
        e -> Long.toString(e.id()));
  }

  @GetMapping(
      value = "/{name}/events",
      params = "follow=true",
      produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Operation(
      operationId = "listTableEvents",
      summary =
          "What the reconciler did to the table, and why (follow=true: live, as Server-Sent"
              + " Events); still answers after the table is dropped",
      description = EVENTS_DESCRIPTION)
  SseEmitter followEvents(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestParam(required = false) Long after,
      @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId) {
    Access.require(Role.VIEWER, catalog, database);
    return streams.table(
        new ObjectName(catalog, database, name), EventStreams.startAfter(lastEventId, after));
  }
}
