package dev.tributary.notify;

import dev.tributary.catalog.CatalogService;
import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.security.ConnectorPolicy;
import dev.tributary.security.SecretBox;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Webhook subscriptions of a database: which events of its tables go to which URL, signed with a
 * secret. The URL must be allowed by the catalog's connector policy ({@code urls}), the same
 * network rule as a source table's options, so a subscription cannot reach what a table may not.
 * Deliveries are written with the events (a trigger, {@code db/V14__webhooks.sql}) and sent by
 * {@link WebhookDispatcher}.
 */
@Component
public class Webhooks {

  /** A subscription, without its secret. */
  public record Webhook(
      UUID id,
      String catalog,
      String database,
      String url,
      List<String> events,
      String description,
      String createdBy,
      Instant createdAt) {}

  /** A new subscription and its secret, which is shown this once. */
  public record Created(Webhook webhook, String secret) {}

  /** One delivery of one event to one subscription, as the log keeps it. */
  public record Delivery(
      long id,
      long eventId,
      String eventType,
      String eventReason,
      String state,
      int attempts,
      Integer lastStatus,
      String lastError,
      Instant createdAt,
      Instant lastAttemptAt,
      Instant nextAttemptAt,
      Instant deliveredAt) {}

  /** An event filter: everything, a type, or a reason such as JobFailed. */
  private static final Pattern EVENT = Pattern.compile("\\*|[A-Z][A-Za-z]{0,63}");

  private static final int MAX_EVENTS = 50;
  private static final int MIN_SECRET = 16;
  private static final int MAX_URL = 2000;

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final CatalogService catalogs;
  private final ConnectorPolicy policy;
  private final SecretBox secrets;
  private final AuditLog audit;
  private final SecureRandom random = new SecureRandom();

  Webhooks(
      JdbcTemplate jdbc,
      PlatformTransactionManager transactionManager,
      CatalogService catalogs,
      ConnectorPolicy policy,
      SecretBox secrets,
      AuditLog audit) {
    this.jdbc = jdbc;
    this.transactions = new TransactionTemplate(transactionManager);
    this.catalogs = catalogs;
    this.policy = policy;
    this.secrets = secrets;
    this.audit = audit;
  }

  /** Checks everything first (400, 403), then stores the subscription with its sealed secret. */
  public Created create(
      String catalog,
      String database,
      String url,
      List<String> events,
      String secret,
      String description) {
    String target = url(url);
    policy.checkUrl(catalog, "url", target);
    List<String> filter = events(events);
    String plain = secret == null ? generatedSecret() : secret;
    if (plain.length() < MIN_SECRET || plain.length() > 200) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "'secret' must have 16 to 200 characters (leave it out and one is generated)",
          Map.of("field", "secret"));
    }
    String sealed = secrets.seal("secret", plain);
    UUID id = UUID.randomUUID();
    String by = Access.caller().name();
    return transactions.execute(
        tx -> {
          long databaseId = catalogs.ensureDatabase(catalog, database).getId();
          jdbc.update(
              connection -> {
                var insert =
                    connection.prepareStatement(
                        "INSERT INTO webhook (id, database_id, url, events, secret, description,"
                            + " created_by) VALUES (?, ?, ?, ?, ?, ?, ?)");
                insert.setObject(1, id);
                insert.setLong(2, databaseId);
                insert.setString(3, target);
                insert.setArray(4, connection.createArrayOf("text", filter.toArray()));
                insert.setString(5, sealed);
                insert.setString(6, description);
                insert.setString(7, by);
                return insert;
              });
          String resource = catalog + "." + database + " webhook " + id;
          audit.changed("CREATE WEBHOOK", resource, null, target + " " + filter);
          return new Created(get(catalog, database, id), plain);
        });
  }

  public List<Webhook> list(String catalog, String database) {
    return jdbc.query(
        SELECT + " WHERE c.name = ? AND d.name = ? ORDER BY w.created_at, w.id",
        Webhooks::webhook,
        catalog,
        database);
  }

  public Webhook get(String catalog, String database, UUID id) {
    return jdbc
        .query(
            SELECT + " WHERE c.name = ? AND d.name = ? AND w.id = ?",
            Webhooks::webhook,
            catalog,
            database,
            id)
        .stream()
        .findFirst()
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND, "No webhook " + id + " in " + catalog + "." + database));
  }

  /** Removes the subscription and its delivery log; pending deliveries are not sent. */
  public void delete(String catalog, String database, UUID id) {
    Webhook webhook = get(catalog, database, id);
    transactions.executeWithoutResult(
        tx -> {
          jdbc.update("DELETE FROM webhook WHERE id = ?", id);
          audit.changed(
              "DROP WEBHOOK",
              catalog + "." + database + " webhook " + id,
              webhook.url() + " " + webhook.events(),
              null);
        });
  }

  /** The newest deliveries of a subscription, newest first. */
  /** Newest first: at most {@code limit} deliveries with an id below {@code before} (or any). */
  public List<Delivery> deliveries(
      String catalog, String database, UUID id, Long before, int limit) {
    get(catalog, database, id);
    return jdbc.query(
        """
        SELECT l.id, l.event_id, e.type, e.reason, l.state, l.attempts, l.last_status,
               l.last_error, l.created_at, l.last_attempt_at, l.next_attempt_at, l.delivered_at
        FROM webhook_delivery l LEFT JOIN table_event e ON e.id = l.event_id
        WHERE l.webhook_id = ? AND l.id < ? ORDER BY l.id DESC LIMIT ?""",
        (rs, n) ->
            new Delivery(
                rs.getLong("id"),
                rs.getLong("event_id"),
                rs.getString("type"),
                rs.getString("reason"),
                rs.getString("state"),
                rs.getInt("attempts"),
                (Integer) rs.getObject("last_status"),
                rs.getString("last_error"),
                instant(rs.getTimestamp("created_at")),
                instant(rs.getTimestamp("last_attempt_at")),
                "PENDING".equals(rs.getString("state"))
                    ? instant(rs.getTimestamp("next_attempt_at"))
                    : null,
                instant(rs.getTimestamp("delivered_at"))),
        id,
        before == null ? Long.MAX_VALUE : before,
        limit);
  }

  private static final String SELECT =
      """
      SELECT w.id, c.name AS catalog, d.name AS database, w.url, w.events, w.description,
             w.created_by, w.created_at
      FROM webhook w JOIN catalog_database d ON d.id = w.database_id
        JOIN catalog c ON c.id = d.catalog_id""";

  private static Webhook webhook(ResultSet rs, int n) throws SQLException {
    Array events = rs.getArray("events");
    return new Webhook(
        rs.getObject("id", UUID.class),
        rs.getString("catalog"),
        rs.getString("database"),
        rs.getString("url"),
        Arrays.asList((String[]) events.getArray()),
        rs.getString("description"),
        rs.getString("created_by"),
        instant(rs.getTimestamp("created_at")));
  }

  private static Instant instant(Timestamp at) {
    return at == null ? null : at.toInstant();
  }

  /** An absolute http(s) URL with a host and no user information. */
  static String url(String url) {
    if (url == null || url.isBlank()) {
      throw invalid("url", "'url' is required");
    }
    if (url.length() > MAX_URL) {
      throw invalid("url", "'url' is longer than " + MAX_URL + " characters");
    }
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw invalid("url", "'url' is not a URL: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw invalid("url", "'url' must be an http:// or https:// URL");
    }
    if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
      throw invalid("url", "'url' needs a host, and no user name or fragment");
    }
    return uri.toString();
  }

  static List<String> events(List<String> events) {
    if (events == null || events.isEmpty()) {
      throw invalid(
          "events", "'events' is required: [\"*\"], [\"WARNING\"] or reasons such as JobFailed");
    }
    if (events.size() > MAX_EVENTS) {
      throw invalid("events", "'events' may hold at most " + MAX_EVENTS + " entries");
    }
    for (String event : events) {
      if (event == null || !EVENT.matcher(event).matches()) {
        throw invalid(
            "events",
            "'events' cannot hold '"
                + event
                + "'; expected *, NORMAL, WARNING or an event reason such as JobFailed");
      }
    }
    return events.stream().distinct().toList();
  }

  private String generatedSecret() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return "whsec_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static ApiException invalid(String field, String detail) {
    return new ApiException(ErrorCode.VALIDATION_FAILED, detail, Map.of("field", field));
  }
}
