package dev.tributary.statement.web;

import dev.tributary.statement.StatementResult;
import dev.tributary.statement.StatementService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import java.util.List;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** SQL in: one statement or a script of several separated by ';'. */
@RestController
@RequestMapping("/v1/statements")
@Tag(name = "Statements", description = "Materialized tables, pipelines and source tables in SQL")
class StatementController {

  private final StatementService statements;

  StatementController(StatementService statements) {
    this.statements = statements;
  }

  @PostMapping
  @Operation(
      operationId = "executeStatements",
      summary = "Run a statement or a script",
      description =
          "The whole script is parsed and validated first; it then runs in one transaction,"
              + " so when any statement fails nothing of it is kept. Errors are problem documents with a code,"
              + " the statement index, line, column and a snippet. A change to a materialized table is planned"
              + " first (result.plan); a plan that cannot be applied safely is a 409 PLAN_REJECTED carrying it."
              + " With dryRun nothing is kept.")
  ScriptResponse execute(@Valid @RequestBody StatementRequest request) {
    if (Boolean.TRUE.equals(request.dryRun())) {
      return new ScriptResponse(
          true, statements.dryRun(request.statement(), request.catalog(), request.database()));
    }
    return new ScriptResponse(
        false, statements.execute(request.statement(), request.catalog(), request.database()));
  }

  @PostMapping("/validate")
  @Operation(
      operationId = "validateStatements",
      summary = "Parse and validate a script without running it",
      description =
          "No side effects. Returns each statement's kind and canonical form; CI can run it as a linter.")
  ScriptResponse validate(@Valid @RequestBody StatementRequest request) {
    return new ScriptResponse(false, statements.validate(request.statement()));
  }

  record StatementRequest(
      @Schema(example = "SHOW MATERIALIZED TABLES") @NotBlank String statement,
      @Schema(description = "Current catalog for unqualified names", example = "examples")
          String catalog,
      @Schema(description = "Current database for unqualified names", example = "marketplace")
          String database,
      @Schema(
              description =
                  "Plan and check every statement, answer as the real run would, and keep"
                      + " nothing: no row, no topic, no job is touched")
          Boolean dryRun) {}

  record ScriptResponse(boolean dryRun, List<StatementResult> results) {}
}
