package dev.tributary.statement;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.plan.ChangePlan;
import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableChange;
import dev.tributary.table.TableSpec;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.stereotype.Service;

/**
 * Plans and applies a declared set of SQL files for one database, as {@code tributary plan} and
 * {@code apply} send them: every file is a script of CREATE statements saying what should exist,
 * and the plan says, per object, what applying the set would do. Files that cannot be carried out
 * are rejected with their reason and position, and the rest is planned without them; an apply with
 * any rejection applies nothing. With {@code prune}, the database's materialized tables, pipeline
 * tables and flows that no file declares are dropped (source tables are kept: they are registered
 * from outside as often as from files).
 */
@Service
public class DeclaredSets {

  private final StatementService statements;
  private final MaterializedTableService tables;
  private final PipelineTables pipelines;
  private final CatalogService catalogs;

  DeclaredSets(
      StatementService statements,
      MaterializedTableService tables,
      PipelineTables pipelines,
      CatalogService catalogs) {
    this.statements = statements;
    this.tables = tables;
    this.pipelines = pipelines;
    this.catalogs = catalogs;
  }

  /** A file of the set: its name as the client calls it (shown in rejections) and its text. */
  public record SqlFile(String name, String sql) {}

  /** What applying the set would do, or did; {@code planId} names the files and what they met. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SetPlan(
      String planId,
      String catalog,
      String database,
      boolean prune,
      boolean applied,
      boolean changes,
      boolean rejected,
      List<Entry> objects) {}

  /**
   * One object of a plan, as the CLI prints it; {@code table} is the table whose status shows how
   * the object is doing (the object itself, or a flow's pipeline table).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "PlanItem", description = "One object of a plan and what applying it does")
  public record Entry(
      Action action,
      String type,
      String name,
      String table,
      String file,
      Integer line,
      Integer column,
      String code,
      String summary,
      ChangePlan plan) {}

  /** {@code + create}, {@code ~ evolve}, {@code ~ change}, {@code = unchanged}, {@code - drop}. */
  public enum Action {
    CREATE,
    EVOLVE,
    CHANGE,
    UNCHANGED,
    DROP,
    REJECTED;

    boolean isChange() {
      return this != UNCHANGED && this != REJECTED;
    }
  }

  public SetPlan plan(String catalog, String database, List<SqlFile> files, boolean prune) {
    Access.require(Role.VIEWER, catalog, database);
    return run(catalog, database, files, prune, true);
  }

  /**
   * Applies the set in one transaction. With {@code planId}, it is applied only if the files and
   * the database are still what that plan saw (else 409 PLAN_STALE); a set with a rejected file is
   * applied not at all (the file's error, with its position).
   */
  public SetPlan apply(
      String catalog, String database, List<SqlFile> files, boolean prune, String planId) {
    Access.require(Role.DEVELOPER, catalog, database);
    if (planId != null && !planId.equals(planId(catalog, database, files, prune))) {
      throw new ApiException(
          ErrorCode.PLAN_STALE,
          "Plan "
              + planId
              + " no longer matches: the files or the objects of "
              + catalog
              + "."
              + database
              + " changed since it was made; plan again");
    }
    return run(catalog, database, files, prune, false);
  }

  /** Why a set is not applied: its first rejected file's error, at its position. */
  private static ApiException refusal(Entry rejected) {
    Map<String, Object> where = new LinkedHashMap<>();
    where.put("file", rejected.file());
    where.put("line", rejected.line());
    where.put("column", rejected.column());
    return new ApiException(
        ErrorCode.valueOf(rejected.code()),
        rejected.file()
            + ":"
            + rejected.line()
            + ":"
            + rejected.column()
            + ": "
            + rejected.summary(),
        where);
  }

  /**
   * Plans ({@code dryRun}) or applies the set. A plan rejects a failing file and plans the rest
   * without it; an apply stops at the first rejected file, and its transaction keeps nothing.
   */
  private SetPlan run(
      String catalog, String database, List<SqlFile> files, boolean prune, boolean dryRun) {
    String id = planId(catalog, database, files, prune);
    List<Entry> rejected = new ArrayList<>();
    List<Parsed> parsed = new ArrayList<>();
    for (SqlFile file : files) {
      try {
        List<Parser.Parsed> script = Parser.parseScript(file.sql());
        for (Parser.Parsed p : script) {
          p.requireSupported();
          if (!StatementExecutor.declares(p.statement())) {
            int[] at = p.start();
            throw new ApiException(
                ErrorCode.UNSUPPORTED_STATEMENT,
                p.statement().kind()
                    + " does not declare an object; a plan's files hold CREATE statements (and"
                    + " USE). Run it with POST /v1/statements, or with tributary's verbs",
                Map.of("line", at[0], "column", at[1]));
          }
        }
        parsed.add(new Parsed(file, script));
      } catch (SqlException e) {
        rejected.add(rejection(file, e.code(), e.getMessage(), e.line(), e.column()));
      } catch (ApiException e) {
        rejected.add(rejection(file, e, null));
      }
    }
    if (!dryRun && !rejected.isEmpty()) {
      throw refusal(rejected.get(0));
    }
    while (true) {
      List<List<Parser.Parsed>> scripts = new ArrayList<>();
      List<Parser.Parsed> all = new ArrayList<>();
      List<SqlFile> owners = new ArrayList<>();
      for (Parsed file : parsed) {
        List<Parser.Parsed> script = new ArrayList<>();
        for (Parser.Parsed p : file.statements()) {
          Parser.Parsed reindexed = p.withIndex(all.size());
          all.add(reindexed);
          owners.add(file.file());
          script.add(reindexed);
        }
        scripts.add(script);
      }
      try {
        List<Entry> entries =
            statements.runDeclared(
                scripts,
                catalog,
                database,
                dryRun,
                (results, reads) -> entries(catalog, database, results, owners, all, prune));
        List<Entry> objects = new ArrayList<>(entries);
        objects.addAll(rejected);
        boolean changes = objects.stream().anyMatch(e -> e.action().isChange());
        return new SetPlan(
            id, catalog, database, prune, !dryRun, changes, !rejected.isEmpty(), objects);
      } catch (ApiException e) {
        Object index = e.properties().get("statementIndex");
        if (!(index instanceof Integer i) || i < 0 || i >= all.size()) {
          throw e;
        }
        SqlFile file = owners.get(i);
        Entry rejection = rejection(file, e, all.get(i));
        if (!dryRun) {
          throw refusal(rejection);
        }
        rejected.add(rejection);
        parsed.removeIf(p -> p.file() == file);
      }
    }
  }

  private record Parsed(SqlFile file, List<Parser.Parsed> statements) {}

  private List<Entry> entries(
      String catalog,
      String database,
      List<StatementResult> results,
      List<SqlFile> owners,
      List<Parser.Parsed> all,
      boolean prune) {
    List<Entry> entries = new ArrayList<>();
    Set<String> declared = new HashSet<>();
    for (StatementResult result : results) {
      StatementResult.Resource r = result.resource();
      if (r == null) {
        continue; // USE
      }
      ObjectName name = new ObjectName(r.catalog(), r.database(), r.name());
      declared.add(name.toString());
      Parser.Parsed statement = all.get(result.index());
      int[] at = statement.start();
      String table = name.toString();
      if (statement.statement() instanceof Statement.CreateFlow flow) {
        table = new ObjectName(r.catalog(), r.database(), flow.target().name()).toString();
      }
      entries.add(
          new Entry(
              action(result),
              r.type(),
              name.toString(),
              table,
              owners.get(result.index()).name(),
              at[0],
              at[1],
              null,
              result.message(),
              result.plan()));
    }
    if (prune) {
      entries.addAll(drops(catalog, database, declared));
    }
    return entries;
  }

  /** Drops what no file declares: flows first, then tables, each as its own entry. */
  private List<Entry> drops(String catalog, String database, Set<String> declared) {
    List<Entry> drops = new ArrayList<>();
    for (MaterializedTable flow : pipelines.flowsIn(catalog, database)) {
      ObjectName name = new ObjectName(catalog, database, flow.getName());
      if (flow.isDeletionRequested() || declared.contains(name.toString())) {
        continue;
      }
      if (tables.spec(flow).flowStatement() == null) {
        continue;
      }
      MaterializedTable table = tables.byId(flow.getFlowOf());
      ObjectName tableName = new ObjectName(catalog, database, table.getName());
      if (!declared.contains(tableName.toString()) || flow.getName().equals(table.getName())) {
        continue; // dropped with its table, or the table's own CREATE TABLE ... FLOW
      }
      TableChange change = pipelines.dropFlow(name, false);
      drops.add(drop("FLOW", name, tableName, change.message()));
    }
    for (MaterializedTable table : tables.list(catalog, database)) {
      ObjectName name = new ObjectName(catalog, database, table.getName());
      if (table.isDeletionRequested() || declared.contains(name.toString())) {
        continue;
      }
      String type =
          tables.spec(table).kind() == TableSpec.Kind.PIPELINE_TABLE
              ? "PIPELINE_TABLE"
              : "MATERIALIZED_TABLE";
      TableChange change = tables.drop(name, false);
      drops.add(drop(type, name, name, change.message()));
    }
    return drops;
  }

  private static Entry drop(String type, ObjectName name, ObjectName table, String message) {
    return new Entry(
        Action.DROP,
        type,
        name.toString(),
        table.toString(),
        null,
        null,
        null,
        null,
        message,
        null);
  }

  private static Action action(StatementResult result) {
    if (result.plan() != null) {
      return switch (result.plan().action()) {
        case CREATE -> Action.CREATE;
        case EVOLVE -> Action.EVOLVE;
        case CHANGE -> Action.CHANGE;
        case UNCHANGED -> Action.UNCHANGED;
      };
    }
    return switch (result.outcome()) {
      case "CREATED" -> Action.CREATE;
      case "UNCHANGED", "SKIPPED" -> Action.UNCHANGED;
      case "UPDATED", "ALTERED" -> Action.CHANGE;
      default -> Action.CHANGE;
    };
  }

  private static Entry rejection(SqlFile file, ErrorCode code, String message, int line, int col) {
    return new Entry(
        Action.REJECTED, null, null, null, file.name(), line, col, code.name(), message, null);
  }

  /** A refusal of a file's statement: at the spot it names, else where the statement starts. */
  private static Entry rejection(SqlFile file, ApiException e, Parser.Parsed statement) {
    Object line = e.properties().get("line");
    Object column = e.properties().get("column");
    int[] start = statement == null ? new int[] {1, 1} : statement.start();
    if (line instanceof Integer l && column instanceof Integer c) {
      start = new int[] {l, c};
    }
    String message = e.getMessage();
    if (e.code() == ErrorCode.PLAN_REJECTED && e.properties().get("plan") instanceof ChangePlan p) {
      message = String.join("; ", p.rejections());
    }
    return new Entry(
        Action.REJECTED,
        null,
        null,
        null,
        file.name(),
        start[0],
        start[1],
        e.code().name(),
        message,
        null);
  }

  /**
   * Names the plan's inputs: the database, the files in order, prune, and the objects of the
   * database as stored (each table's and flow's id and generation, each source's definition). Two
   * plans with the same id were made from the same files against the same objects.
   */
  private String planId(String catalog, String database, List<SqlFile> files, boolean prune) {
    StringBuilder in = new StringBuilder();
    in.append(catalog).append('\0').append(database).append('\0').append(prune).append('\0');
    for (SqlFile file : files) {
      in.append(file.name()).append('\0').append(file.sql()).append('\0');
    }
    List<MaterializedTable> objects = new ArrayList<>(tables.list(catalog, database));
    objects.addAll(pipelines.flowsIn(catalog, database));
    for (MaterializedTable t : objects) {
      in.append(t.getId()).append(':').append(t.getGeneration()).append(':');
      in.append(t.isDeletionRequested()).append('\0');
    }
    List<SourceTable> sources =
        catalogs.findDatabase(catalog, database).isPresent()
            ? catalogs.sourceTables(catalog, database)
            : List.of();
    for (SourceTable source : sources) {
      in.append(source.getName()).append(':').append(source.definition()).append('\0');
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(in.toString().getBytes(StandardCharsets.UTF_8));
      return "plan-" + HexFormat.of().formatHex(digest, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
