package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableHistory;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** The events of every table and flow of a database, as a list or as a live stream. */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/events")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class DatabaseEventController {

  // One operation in the API document (springdoc merges the list and the stream of a path).
  private static final String SUMMARY =
      "The newest 200 events of the database's tables and flows, oldest first (follow=true: live,"
          + " as Server-Sent Events)";
  private static final String DESCRIPTION =
      "With follow=true, a text/event-stream as the table's, for every table and flow of the"
          + " database, including those created after the stream opened; without after or"
          + " Last-Event-ID it starts with what is written from now on.";

  private final MaterializedTableService tables;
  private final PipelineTables pipelines;
  private final TableHistory history;
  private final EventStreams streams;

  DatabaseEventController(
      MaterializedTableService tables,
      PipelineTables pipelines,
      TableHistory history,
      EventStreams streams) {
    this.tables = tables;
    this.pipelines = pipelines;
    this.history = history;
    this.streams = streams;
  }

  @GetMapping
  @Operation(operationId = "listDatabaseEvents", summary = SUMMARY, description = DESCRIPTION)
  Page<EventStreams.StreamedEvent> list(
      @PathVariable String catalog,
      @PathVariable String database,
      @Parameter(description = "true: a live text/event-stream instead of the list")
          @RequestParam(required = false)
          Boolean follow,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    String list = "events:" + catalog + "." + database;
    int size = Paging.limit(limit);
    Long after = Paging.afterNumber(list, pageToken);
    Map<UUID, String> names = names(catalog, database, new ConcurrentHashMap<>());
    return Paging.fetched(
        list,
        history.eventsAfter(names.keySet(), after == null ? 0 : after, size + 1).stream()
            .map(e -> EventStreams.StreamedEvent.of(e, names.get(e.getTableId())))
            .toList(),
        size,
        e -> Long.toString(e.id()));
  }

  @GetMapping(params = "follow=true", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Operation(operationId = "listDatabaseEvents", summary = SUMMARY, description = DESCRIPTION)
  SseEmitter follow(
      @PathVariable String catalog,
      @PathVariable String database,
      @RequestParam(required = false) Long after,
      @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId) {
    Access.require(Role.VIEWER, catalog, database);
    Map<UUID, String> seen = new ConcurrentHashMap<>();
    long start =
        after == null && lastEventId == null
            ? history.latestEvents(names(catalog, database, seen).keySet()).stream()
                .mapToLong(e -> e.getId())
                .max()
                .orElse(0)
            : EventStreams.startAfter(lastEventId, after);
    return streams.stream(() -> names(catalog, database, seen), start, catalog, database);
  }

  /** The tables and flows of the database, added to those seen before (a dropped one's last). */
  private Map<UUID, String> names(String catalog, String database, Map<UUID, String> seen) {
    for (MaterializedTable t : tables.list(catalog, database)) {
      seen.put(t.getId(), t.getName());
    }
    for (MaterializedTable f : pipelines.flowsIn(catalog, database)) {
      seen.put(f.getId(), f.getName());
    }
    return seen;
  }
}
