package dev.tributary.security;

import io.swagger.v3.oas.annotations.media.Schema;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Who did what to which resource, and when: every change (written in the change's own transaction,
 * so a change rolled back leaves no entry) and every refused attempt (written after the answer).
 * Definitions are kept as their canonical statements, with secrets already masked.
 */
@Component
public class AuditLog {

  /** Each entry is also a log line (logger {@code tributary.audit}), without the definitions. */
  private static final Logger log = LoggerFactory.getLogger("tributary.audit");

  /** What happened to the request. */
  public enum Outcome {
    CHANGED,
    REFUSED
  }

  /** One entry. */
  @Schema(name = "AuditEntry", description = "Who did what to which resource, and when")
  public record Entry(
      long id,
      Instant at,
      String principal,
      String action,
      String resource,
      Outcome outcome,
      Integer status,
      String code,
      String detail,
      String before,
      String after) {}

  /** Filters of a page of the log; null means any. */
  public record Query(
      String principal,
      String action,
      String resource,
      Outcome outcome,
      Instant since,
      Instant until,
      Long before,
      int limit) {}

  private static final RowMapper<Entry> ROWS =
      (rs, i) ->
          new Entry(
              rs.getLong("id"),
              rs.getTimestamp("at").toInstant(),
              rs.getString("principal"),
              rs.getString("action"),
              rs.getString("resource"),
              Outcome.valueOf(rs.getString("outcome")),
              (Integer) rs.getObject("status"),
              rs.getString("code"),
              rs.getString("detail"),
              rs.getString("before_definition"),
              rs.getString("after_definition"));

  private final JdbcTemplate jdbc;

  AuditLog(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** A change by the current caller, in the caller's transaction. */
  public void changed(String action, String resource, String before, String after) {
    insert(
        Access.caller().name(), action, resource, Outcome.CHANGED, null, null, null, before, after);
  }

  /** A refused request. */
  public void refused(
      String principal, String action, String resource, int status, String code, String detail) {
    insert(principal, action, resource, Outcome.REFUSED, status, code, detail, null, null);
  }

  private void insert(
      String principal,
      String action,
      String resource,
      Outcome outcome,
      Integer status,
      String code,
      String detail,
      String before,
      String after) {
    if (outcome == Outcome.CHANGED) {
      logOnCommit(clean(action), clean(resource), clean(principal));
    } else {
      log.info(
          "Refused {} {} by {}: {} {}",
          clean(action),
          clean(resource),
          clean(principal),
          status,
          code != null ? code : "");
    }
    jdbc.update(
        "INSERT INTO audit_event (at, principal, action, resource, outcome, status, code, detail,"
            + " before_definition, after_definition) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        Timestamp.from(Instant.now()),
        clean(principal),
        clean(action),
        clean(resource),
        outcome.name(),
        status,
        code,
        truncate(detail),
        before,
        after);
  }

  /**
   * The line of a change is written once its transaction commits: a statement whose first run is
   * rolled back (a dry run, or a run that collects remote reads before the real one) logs nothing
   * for that run.
   */
  private static void logOnCommit(String action, String resource, String principal) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      log.info("{} {} by {}", action, resource, principal);
      return;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            log.info("{} {} by {}", action, resource, principal);
          }
        });
  }

  /** At most 2,000 characters, and no NUL (PostgreSQL text cannot hold one). */
  private static String truncate(String text) {
    String clean = clean(text);
    return clean == null || clean.length() <= 2000 ? clean : clean.substring(0, 2000) + "...";
  }

  private static String clean(String text) {
    return text == null ? null : text.replace('\u0000', '\ufffd');
  }

  public List<Entry> page(Query query) {
    StringBuilder where = new StringBuilder(" WHERE TRUE");
    List<Object> args = new ArrayList<>();
    if (query.principal() != null) {
      where.append(" AND principal = ?");
      args.add(query.principal());
    }
    if (query.action() != null) {
      where.append(" AND action = ?");
      args.add(query.action());
    }
    if (query.resource() != null) {
      // The resource or anything under it: examples.marketplace matches its tables.
      where.append(" AND (resource = ? OR starts_with(resource, ?))");
      args.add(query.resource());
      args.add(query.resource() + ".");
    }
    if (query.outcome() != null) {
      where.append(" AND outcome = ?");
      args.add(query.outcome().name());
    }
    if (query.since() != null) {
      where.append(" AND at >= ?");
      args.add(Timestamp.from(query.since()));
    }
    if (query.until() != null) {
      where.append(" AND at < ?");
      args.add(Timestamp.from(query.until()));
    }
    if (query.before() != null) {
      where.append(" AND id < ?");
      args.add(query.before());
    }
    args.add(query.limit());
    return jdbc.query(
        "SELECT * FROM audit_event" + where + " ORDER BY id DESC LIMIT ?", ROWS, args.toArray());
  }
}
