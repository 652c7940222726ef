package dev.tributary.statement;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.plan.ChangePlan;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * The result of one statement of a script: its kind, the resource it touched, what happened, and
 * rows for SHOW, DESCRIBE and SELECT.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StatementResult(
    int index,
    String kind,
    String statement,
    Resource resource,
    String outcome,
    String message,
    List<String> columns,
    List<List<Object>> rows,
    ChangePlan plan) {

  public StatementResult(
      int index,
      String kind,
      String statement,
      Resource resource,
      String outcome,
      String message,
      List<String> columns,
      List<List<Object>> rows) {
    this(index, kind, statement, resource, outcome, message, columns, rows, null);
  }

  /** The same result with the plan of the change it made. */
  public StatementResult withMessage(String newMessage) {
    return new StatementResult(
        index, kind, statement, resource, outcome, newMessage, columns, rows, plan);
  }

  public StatementResult withPlan(ChangePlan newPlan) {
    return new StatementResult(
        index, kind, statement, resource, outcome, message, columns, rows, newPlan);
  }

  /**
   * This result as a dry run tells it: what the statement would do ({@code WOULD_CREATE}, {@code
   * WOULD_EVOLVE}, {@code WOULD_UPDATE}, {@code WOULD_SUSPEND}, {@code WOULD_RESUME}, {@code
   * WOULD_REFRESH}, {@code WOULD_DROP}), and a message that says nothing was stored. Outcomes that
   * change nothing (UNCHANGED, SKIPPED, OK) stay as they are.
   */
  public StatementResult asDryRun() {
    String would =
        switch (outcome == null ? "" : outcome) {
          case "CREATED" -> "WOULD_CREATE";
          case "UPDATED" ->
              plan != null && plan.action() == ChangePlan.Action.EVOLVE
                  ? "WOULD_EVOLVE"
                  : "WOULD_UPDATE";
          case "DROPPED" -> "WOULD_DROP";
          case "REQUESTED" -> requested();
          default -> null;
        };
    if (would == null) {
      return this;
    }
    String said = message == null || message.isBlank() ? "" : " " + message;
    return new StatementResult(
        index,
        kind,
        statement,
        resource,
        would,
        "Dry run, nothing was stored:" + said,
        columns,
        rows,
        plan);
  }

  /** The running-state change a REQUESTED outcome stands for, read from the statement's kind. */
  private String requested() {
    String k = kind == null ? "" : kind;
    for (String verb : new String[] {"SUSPEND", "RESUME", "REFRESH", "DROP"}) {
      if (k.contains(verb)) {
        return "WOULD_" + verb;
      }
    }
    return "WOULD_UPDATE";
  }

  /** A catalog object, by its three-part name. */
  @Schema(name = "StatementTarget", description = "The catalog object a statement acted on")
  public record Resource(String type, String catalog, String database, String name) {}
}
