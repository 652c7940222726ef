package dev.tributary.statement.web;

import dev.tributary.statement.DeclaredSets;
import dev.tributary.statement.DeclaredSets.SetPlan;
import dev.tributary.statement.DeclaredSets.SqlFile;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Size;
import java.util.List;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** A database declared by a set of SQL files: plan it, then apply it (tributary plan / apply). */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}")
@Tag(name = "Plans", description = "A database declared by a set of SQL files")
class DeclaredSetController {

  private final DeclaredSets sets;

  DeclaredSetController(DeclaredSets sets) {
    this.sets = sets;
  }

  @PostMapping("/plans")
  @Operation(
      operationId = "planDeclaredSet",
      summary = "Plan a set of SQL files for a database",
      description =
          "Each file is a script of CREATE statements (and USE) saying what should exist; CREATE of"
              + " an object that exists means \"make it so\". Nothing is kept: the answer gives, per"
              + " object, CREATE, EVOLVE (the job restarts, state discarded), CHANGE (properties),"
              + " UNCHANGED, DROP (with prune: objects of the database no file declares) or REJECTED"
              + " (the reason, file, line and column; the other files are planned without it)."
              + " planId names the files and the objects they met, for apply.")
  SetPlan plan(
      @PathVariable String catalog,
      @PathVariable String database,
      @Valid @RequestBody SetRequest request) {
    return sets.plan(catalog, database, request.sqlFiles(), Boolean.TRUE.equals(request.prune()));
  }

  @PostMapping("/apply")
  @Operation(
      operationId = "applyDeclaredSet",
      summary = "Apply a set of SQL files to a database",
      description =
          "Applies what plan shows, in one transaction: a rejected file applies nothing (its error,"
              + " with file, line and column). With planId, 409 PLAN_STALE when the files or the"
              + " database changed since that plan. The objects then converge as the reconciler"
              + " runs them: follow them with GET .../events?follow=true or their status.")
  SetPlan apply(
      @PathVariable String catalog,
      @PathVariable String database,
      @Valid @RequestBody SetRequest request) {
    return sets.apply(
        catalog,
        database,
        request.sqlFiles(),
        Boolean.TRUE.equals(request.prune()),
        request.planId());
  }

  record SetRequest(
      @Schema(description = "The files, in the order they run (tributary sends file-name order)")
          @NotEmpty
          @Size(max = 1000)
          List<@Valid FileRequest> files,
      @Schema(description = "Also drop the database's tables and flows that no file declares")
          Boolean prune,
      @Schema(description = "Apply only if this plan still matches (apply only)") String planId) {

    List<SqlFile> sqlFiles() {
      return files.stream().map(f -> new SqlFile(f.name(), f.sql())).toList();
    }
  }

  record FileRequest(
      @Schema(example = "orders_by_customer.sql") @NotBlank String name,
      @Schema(example = "CREATE MATERIALIZED TABLE ...") @NotBlank String sql) {}
}
