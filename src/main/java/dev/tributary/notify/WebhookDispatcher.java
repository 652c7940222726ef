package dev.tributary.notify;

import dev.tributary.security.SecretBox;
import dev.tributary.system.Json;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends the pending webhook deliveries, from any replica: each round claims due rows with {@code
 * FOR UPDATE SKIP LOCKED} and leases them for {@link #LEASE} (longer than a send may take), posts
 * them outside any transaction, then records the answer. A 2xx is delivered; anything else is tried
 * again after 1 s, 2 s, 4 s ... (at most 10 minutes apart) until {@code
 * tributary.webhooks.max-attempts}, then FAILED. A replica that dies mid-send leaves its claim to
 * expire, and the delivery goes out again: at least once, so receivers dedupe on {@code
 * Tributary-Delivery}.
 *
 * <p>Each request is signed as Stripe and GitHub sign theirs: {@code Tributary-Signature: t=<unix
 * seconds>,v1=<hex HMAC-SHA256 of "t.body" under the subscription's secret>}. Redirects are not
 * followed (the connector policy allowed the URL, not where it points to).
 */
@Component
public class WebhookDispatcher implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);

  /** How long a claimed delivery is left to its sender before another round may send it. */
  static final Duration LEASE = Duration.ofSeconds(30);

  static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** How often a replica deletes the deliveries of pruned events. */
  static final Duration PRUNE_EVERY = Duration.ofMinutes(10);

  public static final String SIGNATURE = "Tributary-Signature";
  public static final String DELIVERY = "Tributary-Delivery";
  public static final String EVENT = "Tributary-Event";

  private final JdbcTemplate jdbc;
  private final SecretBox secrets;
  private final Duration pollInterval;
  private final int maxAttempts;
  private final HttpClient http;
  private final MeterRegistry meters;
  private ScheduledExecutorService rounds;
  private ExecutorService senders;
  private volatile boolean running;

  WebhookDispatcher(
      JdbcTemplate jdbc,
      SecretBox secrets,
      MeterRegistry meters,
      @Value("${tributary.webhooks.poll-interval:500ms}") Duration pollInterval,
      @Value("${tributary.webhooks.max-attempts:12}") int maxAttempts) {
    this.jdbc = jdbc;
    this.secrets = secrets;
    this.meters = meters;
    this.pollInterval = pollInterval;
    this.maxAttempts = maxAttempts;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public void start() {
    running = true;
    senders =
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "webhook-send");
              t.setDaemon(true);
              return t;
            });
    rounds =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "webhook-dispatch");
              t.setDaemon(true);
              return t;
            });
    rounds.scheduleWithFixedDelay(
        this::safeRound, pollInterval.toMillis(), pollInterval.toMillis(), TimeUnit.MILLISECONDS);
    rounds.scheduleWithFixedDelay(
        this::safePrune, PRUNE_EVERY.toMinutes(), PRUNE_EVERY.toMinutes(), TimeUnit.MINUTES);
  }

  private void safePrune() {
    try {
      int gone = pruneDeliveries();
      if (gone > 0) {
        log.info("Deleted {} webhook deliveries of pruned events", gone);
      }
    } catch (RuntimeException e) {
      log.warn("Deleting old webhook deliveries failed: {}", e.toString());
    }
  }

  /**
   * The delivery log lives as long as its events: a delivery that ended (DELIVERED or FAILED) goes
   * once its event was pruned (tributary.events.retention and max-per-table). A PENDING one stays:
   * its next attempt finds the event gone and ends it FAILED, and a later prune takes it.
   */
  public int pruneDeliveries() {
    return jdbc.update(
        """
        DELETE FROM webhook_delivery d WHERE d.state <> 'PENDING'
          AND NOT EXISTS (SELECT 1 FROM table_event e WHERE e.id = d.event_id)""");
  }

  @Override
  public void stop() {
    running = false;
    if (rounds != null) {
      rounds.shutdownNow();
      senders.shutdownNow();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  private void safeRound() {
    try {
      while (running && round() > 0) {
        // a full batch: there may be more due
      }
    } catch (RuntimeException e) {
      log.warn("Webhook round failed: {}", e.toString());
    }
  }

  private record Claimed(long id, UUID webhook, long event, int attempts) {}

  /** One batch: claim, send, record. Returns how many were claimed. */
  int round() {
    List<Claimed> claimed =
        jdbc.query(
            """
            WITH due AS MATERIALIZED (
              SELECT id FROM webhook_delivery
              WHERE state = 'PENDING' AND next_attempt_at <= now()
              ORDER BY next_attempt_at LIMIT 20 FOR UPDATE SKIP LOCKED)
            UPDATE webhook_delivery w SET attempts = w.attempts + 1, last_attempt_at = now(),
              next_attempt_at = now() + (? * interval '1 millisecond')
            FROM due WHERE w.id = due.id
            RETURNING w.id, w.webhook_id, w.event_id, w.attempts""",
            (rs, n) ->
                new Claimed(
                    rs.getLong("id"),
                    rs.getObject("webhook_id", UUID.class),
                    rs.getLong("event_id"),
                    rs.getInt("attempts")),
            LEASE.toMillis());
    List<Future<?>> sends = new ArrayList<>();
    for (Claimed c : claimed) {
      sends.add(senders.submit(() -> deliver(c)));
    }
    for (Future<?> send : sends) {
      try {
        send.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 0;
      } catch (Exception e) {
        log.warn("A webhook delivery failed outside its handling", e);
      }
    }
    return claimed.size();
  }

  private void deliver(Claimed c) {
    List<Map<String, Object>> rows =
        jdbc.queryForList(
            """
            SELECT w.url, w.secret, c.name AS catalog, d.name AS database,
                   e.at, e.type, e.reason, e.message, e.table_id,
                   coalesce(p.name, t.name) AS table_name,
                   CASE WHEN t.flow_of IS NULL THEN NULL ELSE t.name END AS flow,
                   coalesce(p.phase, t.phase) AS phase
            FROM webhook w JOIN catalog_database d ON d.id = w.database_id
              JOIN catalog c ON c.id = d.catalog_id
              LEFT JOIN table_event e ON e.id = ?
              LEFT JOIN materialized_table t ON t.id = e.table_id
              LEFT JOIN materialized_table p ON p.id = t.flow_of
            WHERE w.id = ?""",
            c.event(),
            c.webhook());
    if (rows.isEmpty()) {
      return; // the subscription was deleted; its deliveries went with it
    }
    Map<String, Object> row = rows.get(0);
    if (row.get("type") == null) {
      finish(c, "FAILED", null, "the event is no longer stored (events are pruned after 30 days)");
      return;
    }
    String body = Json.write(payload(c, row));
    long t = Instant.now().getEpochSecond();
    String secret = secrets.open((String) row.get("secret"));
    Integer status = null;
    String error;
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create((String) row.get("url")))
                  .timeout(TIMEOUT)
                  .header("Content-Type", "application/json")
                  .header("User-Agent", "Tributary-Webhooks/1")
                  .header(DELIVERY, Long.toString(c.id()))
                  .header(EVENT, Long.toString(c.event()))
                  .header(SIGNATURE, "t=" + t + ",v1=" + sign(secret, t, body))
                  .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      status = answer.statusCode();
      if (status / 100 == 2) {
        finish(c, "DELIVERED", status, null);
        count("delivered");
        return;
      }
      String text = answer.body() == null ? "" : answer.body();
      error = "HTTP " + status + (text.isBlank() ? "" : ": " + cut(text));
    } catch (IOException e) {
      error = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return; // shutting down: the lease runs out and another round sends it
    }
    if (c.attempts() >= maxAttempts) {
      finish(c, "FAILED", status, error + " (attempt " + c.attempts() + " of " + maxAttempts + ")");
      count("failed");
      log.warn("Webhook delivery {} failed for good: {}", c.id(), error);
    } else {
      long backoff = Math.min(600_000L, 1000L << Math.min(20, c.attempts() - 1));
      jdbc.update(
          """
          UPDATE webhook_delivery SET last_status = ?, last_error = ?,
            next_attempt_at = now() + (? * interval '1 millisecond')
          WHERE id = ? AND state = 'PENDING'""",
          status,
          error,
          backoff,
          c.id());
      count("retried");
    }
  }

  private Map<String, Object> payload(Claimed c, Map<String, Object> row) {
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("catalog", row.get("catalog"));
    table.put("database", row.get("database"));
    table.put("name", row.get("table_name"));
    if (row.get("flow") != null) {
      table.put("flow", row.get("flow"));
    }
    table.put("phase", row.get("phase"));
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("id", c.event());
    event.put("at", ((Timestamp) row.get("at")).toInstant().toString());
    event.put("type", row.get("type"));
    event.put("reason", row.get("reason"));
    event.put("message", row.get("message"));
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("delivery", c.id());
    payload.put("webhook", c.webhook().toString());
    payload.put("attempt", c.attempts());
    payload.put("event", event);
    payload.put("table", table);
    return payload;
  }

  private void finish(Claimed c, String state, Integer status, String error) {
    jdbc.update(
        """
        UPDATE webhook_delivery SET state = ?, last_status = ?, last_error = ?,
          delivered_at = CASE WHEN ? = 'DELIVERED' THEN now() END
        WHERE id = ?""",
        state,
        status,
        error,
        state,
        c.id());
  }

  private void count(String outcome) {
    Counter.builder("tributary.webhook.deliveries")
        .description("Webhook delivery attempts, by outcome: delivered, retried, failed (for good)")
        .tag("outcome", outcome)
        .register(meters)
        .increment();
  }

  /** Hex HMAC-SHA256 of {@code t + "." + body} under the secret. */
  public static String sign(String secret, long t, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of()
          .formatHex(mac.doFinal((t + "." + body).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String cut(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
