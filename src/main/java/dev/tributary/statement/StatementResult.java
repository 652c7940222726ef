package dev.tributary.statement;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.plan.ChangePlan;
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

  /** A catalog object, by its three-part name. */
  public record Resource(String type, String catalog, String database, String name) {}
}
