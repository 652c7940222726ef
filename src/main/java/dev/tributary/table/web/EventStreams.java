package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.Caller;
import dev.tributary.security.Credentials;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.web.Problems;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableEvent;
import dev.tributary.table.TableHistory;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Server-Sent Events of the event log: each event once, in order, as it is written. A stream reads
 * the log every {@code tributary.events.poll-interval} from the last id it sent (the event's SSE
 * {@code id}, so a client that reconnects with {@code Last-Event-ID} misses nothing), and sends a
 * comment every 15 s so that proxies keep the connection open.
 */
@Component
public class EventStreams {

  private static final Logger log = LoggerFactory.getLogger(EventStreams.class);
  private static final long HEARTBEAT_NANOS = Duration.ofSeconds(15).toNanos();

  private final MaterializedTableService tables;
  private final TableHistory history;
  private final Credentials credentials;
  private final ScheduledExecutorService pollers;
  private final Duration interval;
  private final Duration timeout;

  EventStreams(
      MaterializedTableService tables,
      TableHistory history,
      Credentials credentials,
      @Value("${tributary.events.poll-interval:500ms}") Duration interval,
      @Value("${tributary.events.stream-timeout:1h}") Duration timeout) {
    this.tables = tables;
    this.history = history;
    this.credentials = credentials;
    this.interval = interval;
    this.timeout = timeout;
    this.pollers =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "event-streams");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * One event, as lists answer it and streams send it: {@code table} names the table or flow it is
   * about; {@code id} orders events and resumes a stream (Last-Event-ID).
   */
  @Schema(name = "TableEvent", description = "What the reconciler did to a table, and why")
  public record StreamedEvent(
      long id, String table, Instant at, String type, String reason, String message) {

    static StreamedEvent of(TableEvent e, String table) {
      return new StreamedEvent(
          e.getId(), table, e.getAt(), e.getType().name(), e.getReason(), e.getMessage());
    }
  }

  /**
   * A stream of the events of the tables {@code names} maps (id to name; asked again at every read,
   * so that a database's stream sees tables created after it opened), after event {@code afterId}.
   * The caller of this request is checked again at every read: once its credential is revoked or
   * expires, or it may no longer read the database, the stream ends with an {@code error} event
   * carrying the problem.
   */
  public SseEmitter stream(
      Supplier<Map<UUID, String>> names, long afterId, String catalog, String database) {
    Caller caller = Access.caller();
    SseEmitter emitter = new SseEmitter(timeout.toMillis());
    AtomicLong last = new AtomicLong(afterId);
    AtomicLong lastSent = new AtomicLong(System.nanoTime());
    ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
    Runnable stop =
        () -> {
          if (task[0] != null) {
            task[0].cancel(false);
          }
        };
    emitter.onCompletion(stop);
    emitter.onTimeout(
        () -> {
          stop.run();
          emitter.complete();
        });
    emitter.onError(e -> stop.run());
    try {
      // Sent when the handler returns: the client sees the stream's headers at once.
      emitter.send(SseEmitter.event().comment("following events after " + afterId));
    } catch (IOException e) {
      stop.run();
    }
    task[0] =
        pollers.scheduleWithFixedDelay(
            () -> {
              try {
                Optional<ApiException> ended = credentials.revoked(caller, catalog, database);
                if (ended.isPresent()) {
                  ProblemDetail problem = Problems.of(ended.get().code(), ended.get().getMessage());
                  emitter.send(
                      SseEmitter.event()
                          .name("error")
                          .data(Problems.json(problem), MediaType.APPLICATION_JSON));
                  stop.run();
                  emitter.complete();
                  return;
                }
                Map<UUID, String> known = names.get();
                List<TableEvent> events = history.eventsAfter(known.keySet(), last.get());
                for (TableEvent e : events) {
                  emitter.send(
                      SseEmitter.event()
                          .id(Long.toString(e.getId()))
                          .name("event")
                          .data(
                              StreamedEvent.of(e, known.get(e.getTableId())),
                              MediaType.APPLICATION_JSON));
                  last.set(e.getId());
                  lastSent.set(System.nanoTime());
                }
                if (System.nanoTime() - lastSent.get() > HEARTBEAT_NANOS) {
                  emitter.send(SseEmitter.event().comment("heartbeat"));
                  lastSent.set(System.nanoTime());
                }
              } catch (IOException | IllegalStateException e) {
                // The client went away: the emitter is done.
                stop.run();
              } catch (RuntimeException e) {
                log.warn("Event stream stopped: {}", e.toString());
                stop.run();
                emitter.completeWithError(e);
              }
            },
            0,
            interval.toMillis(),
            TimeUnit.MILLISECONDS);
    return emitter;
  }

  /**
   * A stream of the events of a table (or, once dropped, of the last table of that name) and of its
   * flows, after event {@code afterId}.
   */
  public SseEmitter table(ObjectName table, long afterId) {
    UUID id = history.historyOf(table);
    Map<UUID, String> names = new ConcurrentHashMap<>();
    names.put(id, table.name());
    return stream(
        () -> {
          tables
              .find(table)
              .ifPresent(t -> tables.flows(t).forEach(f -> names.put(f.getId(), f.getName())));
          return names;
        },
        afterId,
        table.catalog(),
        table.database());
  }

  /** The id a stream starts after: {@code Last-Event-ID} when reconnecting, else {@code after}. */
  public static long startAfter(String lastEventId, Long after) {
    if (lastEventId != null && !lastEventId.isBlank()) {
      try {
        return Long.parseLong(lastEventId.trim());
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    return after == null ? 0 : after;
  }

  @PreDestroy
  void close() {
    pollers.shutdownNow();
  }
}
