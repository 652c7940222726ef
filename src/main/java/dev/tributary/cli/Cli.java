package dev.tributary.cli;

import dev.tributary.cli.CliClient.Answer;
import dev.tributary.cli.CliClient.CliException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The command line: {@code tributary <verb> [options]}, from the service jar or from {@code
 * target/tributary-cli.jar}. It talks to a running service over its REST API and never starts one.
 * Its grammar is {@link Verbs} (picocli); this class does what a verb asks. Exit codes follow
 * Terraform's detailed exit code: 0 success with nothing to change, 2 a plan with changes, 1 an
 * error, a rejection, a failed object or a wait that ran out.
 */
public final class Cli {

  /** A line of {@code status}: name, phase, mode, freshness, lag, last and next refresh. */
  private static final String STATUS_ROW = "%-32s %-10s %-10s %-22s %-7s %-26s %s";

  static final int OK = 0;
  static final int ERROR = 1;
  static final int CHANGES = 2;

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;
  private final boolean terminal;

  Cli(PrintStream out, PrintStream err, Map<String, String> env, boolean terminal) {
    this.out = out;
    this.err = err;
    this.env = env;
    this.terminal = terminal;
  }

  /**
   * Whether the jar's arguments start the service: none at all, or the verb {@code serve}. Anything
   * else is the command line, so a mistyped verb or {@code --help} never starts a service.
   */
  public static boolean startsService(String[] args) {
    return args.length == 0 || args[0].equals("serve");
  }

  /** Runs the command line and exits the JVM with its exit code. */
  public static void main(String[] args) {
    boolean terminal = System.console() != null && System.getenv("CI") == null;
    // UTF-8 whatever the locale: names, messages and Mermaid labels are not all ASCII.
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    PrintStream err =
        new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    System.exit(new Cli(out, err, System.getenv(), terminal).run(args));
  }

  /** Runs one command; returns its exit code. */
  public int run(String... args) {
    CommandLine line = commandLine();
    line.setExecutionStrategy(this::execute);
    line.setParameterExceptionHandler(this::refuse);
    return line.execute(args);
  }

  private CommandLine commandLine() {
    CommandLine line = Verbs.commandLine();
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    return line;
  }

  private int execute(ParseResult parsed) {
    Integer help = CommandLine.executeHelpRequest(parsed);
    if (help != null) {
      return help;
    }
    ParseResult verb = parsed.subcommand();
    if (verb == null) {
      err.println("error: no verb given");
      err.println("Run 'tributary --help' for the verbs.");
      return ERROR;
    }
    String name = verb.commandSpec().name();
    if (name.equals("help") || name.equals("generate-completion")) {
      return new CommandLine.RunLast().execute(parsed);
    }
    if (name.equals("serve")) {
      err.println(
          "error: serve starts the service from the service jar (java -jar"
              + " target/tributary-<version>.jar serve); this jar is the command line only");
      return ERROR;
    }
    try {
      Options o = Options.from(verb, env);
      CliClient client = new CliClient(o.url, o.apiKey);
      return switch (o.verb) {
        case "plan" -> plan(client, o);
        case "apply" -> apply(client, o);
        case "status" -> status(client, o);
        case "suspend" -> statement(client, o, "ALTER MATERIALIZED TABLE %s SUSPEND");
        case "resume" -> statement(client, o, "ALTER MATERIALIZED TABLE %s RESUME");
        case "refresh" -> refresh(client, o);
        case "drop" -> drop(client, o);
        case "events" -> events(client, o);
        case "lineage" -> lineage(client, o);
        default -> throw new CliException("unknown verb " + o.verb);
      };
    } catch (CliException e) {
      err.println("error: " + e.getMessage());
      return ERROR;
    }
  }

  /** A command line picocli could not match: what was wrong, what was meant, where help is. */
  private int refuse(ParameterException ex, String[] args) {
    CommandLine at = ex.getCommandLine();
    boolean root = at.getParent() == null;
    String message = ex.getMessage();
    if (ex instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String first = unmatched.getUnmatched().get(0);
      message =
          first.startsWith("-")
              ? "unknown option " + first
              : root ? "unknown verb " + first : "unexpected argument " + first;
    } else if (ex instanceof MissingParameterException missing
        && missing.getMissing().stream().anyMatch(ArgSpec::isPositional)) {
      message = at.getCommandName() + " takes one table name";
    }
    err.println("error: " + message);
    PrintWriter suggestions = new PrintWriter(err, true);
    UnmatchedArgumentException.printSuggestions(ex, suggestions);
    suggestions.flush();
    err.println(
        "Run 'tributary "
            + (root ? "" : at.getCommandName() + " ")
            + "--help' for "
            + (root ? "the verbs" : "its options")
            + ".");
    return ERROR;
  }

  // ---- plan and apply ----

  private int plan(CliClient client, Options o) {
    Answer answer = client.post(o.databasePath() + "/plans", setRequest(o, null));
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    JsonNode plan = answer.body();
    if (o.json) {
      out.println(plan.toPrettyString());
    } else {
      PlanText.print(out, plan);
    }
    if (plan.path("rejected").asBoolean() || o.has("fail-on-warning") && warned(plan)) {
      return ERROR;
    }
    return plan.path("changes").asBoolean() ? CHANGES : OK;
  }

  /** Whether any object of a set's plan carries warnings. */
  private static boolean warned(JsonNode plan) {
    for (JsonNode e : plan.path("objects")) {
      if (!e.path("plan").path("warnings").isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private int apply(CliClient client, Options o) {
    String planId = o.value("plan-id");
    if (planId == null) {
      Answer planned = client.post(o.databasePath() + "/plans", setRequest(o, null));
      if (!planned.ok()) {
        throw new CliException(planned.problem());
      }
      if (!o.json) {
        PlanText.print(out, planned.body());
      }
      if (o.has("fail-on-warning") && warned(planned.body())) {
        err.println("error: the plan has warnings (--fail-on-warning); nothing was applied");
        return ERROR;
      }
      if (planned.body().path("rejected").asBoolean()) {
        if (o.json) {
          out.println(planned.body().toPrettyString());
        }
        err.println("error: the plan has rejected files; nothing was applied");
        return ERROR;
      }
      if (!planned.body().path("changes").asBoolean()) {
        if (o.json) {
          out.println(planned.body().toPrettyString());
        } else {
          out.println("No changes: nothing to apply.");
        }
        return OK;
      }
      planId = planned.body().path("planId").asString();
    }
    Answer applied = client.post(o.databasePath() + "/apply", setRequest(o, planId));
    if (!applied.ok()) {
      throw new CliException(applied.problem());
    }
    if (!o.json) {
      out.println(
          "Applied "
              + planId
              + ". Waiting for the objects to settle (--wait "
              + o.waitText()
              + ")...");
    }
    Map<String, Follow> follows = new LinkedHashMap<>();
    for (JsonNode entry : applied.body().path("objects")) {
      String action = entry.path("action").asString();
      if (action.equals("UNCHANGED") || action.equals("REJECTED")) {
        continue;
      }
      String name = entry.path("name").asString();
      String table = entry.path("table").asString(name);
      String type = entry.path("type").asString();
      if (type.equals("SOURCE_TABLE")) {
        continue; // registered at once; nothing runs
      }
      follows.putIfAbsent(
          name, new Follow(name, table, type.equals("FLOW"), action.equals("DROP")));
    }
    int code = await(client, o, follows);
    if (o.json) {
      ObjectNode result = (ObjectNode) applied.body();
      ObjectNode settled = result.putObject("settled");
      follows
          .values()
          .forEach(f -> settled.put(f.name, f.state + (f.cause == null ? "" : ": " + f.cause)));
      out.println(result.toPrettyString());
    }
    return code;
  }

  /**
   * One object apply waits for, and what it last saw: a table, or a flow (seen in its table's list
   * of flows).
   */
  private static final class Follow {
    final String name;
    final String table;
    final boolean flow;
    final boolean dropped;
    String state = "PENDING";
    String cause;
    long runningSince = -1;
    boolean done;
    boolean failed;

    Follow(String name, String table, boolean flow, boolean dropped) {
      this.name = name;
      this.table = table;
      this.flow = flow;
      this.dropped = dropped;
    }

    String line() {
      String mark = failed ? "!!" : done ? "ok" : "..";
      return String.format(
          Locale.ROOT, "%s %-50s %s%s", mark, name, state, cause == null ? "" : ": " + cause);
    }
  }

  private int await(CliClient client, Options o, Map<String, Follow> follows) {
    Progress progress =
        new Progress(o.json ? new PrintStream(PrintStream.nullOutputStream()) : out, terminal);
    long deadline = System.nanoTime() + o.waitFor().toNanos();
    while (true) {
      for (Follow f : follows.values()) {
        if (f.done) {
          continue;
        }
        observe(client, o, f);
        progress.show(f.name, f.line());
      }
      if (follows.values().stream().allMatch(f -> f.done)) {
        break;
      }
      if (System.nanoTime() > deadline) {
        progress.end();
        for (Follow f : follows.values()) {
          if (!f.done) {
            err.println(
                "error: "
                    + f.name
                    + " did not settle within "
                    + o.waitText()
                    + "; it is "
                    + f.state
                    + (f.cause == null ? "" : ": " + f.cause));
          }
        }
        return ERROR;
      }
      sleep(Duration.ofMillis(1000));
    }
    progress.end();
    int code = OK;
    for (Follow f : follows.values()) {
      if (f.failed) {
        err.println("error: " + f.name + " FAILED: " + f.cause);
        code = ERROR;
      }
    }
    return code;
  }

  /**
   * Follows one object: done when it is STOPPED, or RUNNING for {@code --stable} in a row (a job
   * whose first records fail it is RUNNING for a moment first), failed when it is FAILED.
   */
  private void observe(CliClient client, Options o, Follow f) {
    Answer answer =
        f.flow
            ? client.getAll(o.tablePath(nameOf(f.table)) + "/flows")
            : client.get(o.tablePath(nameOf(f.table)));
    JsonNode t = answer.ok() ? answer.body() : null;
    if (f.flow && t != null) {
      t = null;
      for (JsonNode candidate : answer.body().path("items")) {
        if (candidate.path("metadata").path("name").asString().equals(nameOf(f.name))) {
          t = candidate;
        }
      }
    }
    if (t == null && (answer.ok() || answer.status() == 404)) {
      if (f.dropped) {
        f.state = "DROPPED";
        f.done = true;
      }
      return;
    }
    if (t == null) {
      f.cause = answer.problem();
      return;
    }
    String phase = t.path("status").path("phase").asString("PENDING");
    long generation = t.path("metadata").path("generation").asLong();
    long observed = t.path("status").path("observedGeneration").asLong();
    f.state = phase;
    f.cause = cause(t);
    if (f.dropped || observed < generation) {
      return;
    }
    if (!phase.equals("RUNNING")) {
      f.runningSince = -1;
    }
    if (phase.equals("RUNNING")) {
      long now = System.nanoTime();
      if (f.runningSince < 0) {
        f.runningSince = now;
      }
      f.cause = null;
      if (now - f.runningSince >= o.stable().toNanos()) {
        f.done = true;
      } else {
        f.state = "RUNNING (settling)";
      }
    } else if (phase.equals("STOPPED") || phase.equals("SUCCEEDED")) {
      f.done = true;
      f.cause = null;
    } else if (phase.equals("FAILED")) {
      f.done = true;
      f.failed = true;
    }
  }

  /** A FRESHNESS as the API spells it ({@code {amount, unit}}), written {@code 5 SECOND}. */
  private static String interval(JsonNode freshness) {
    return freshness.path("amount").isNumber()
        ? freshness.path("amount").asLong() + " " + freshness.path("unit").asString()
        : "-";
  }

  /** Why a table is where it is: the status message, else the first false condition's message. */
  private static String cause(JsonNode table) {
    JsonNode status = table.path("status");
    String message = status.path("message").asString("");
    if (!message.isBlank()) {
      return message;
    }
    for (JsonNode c : status.path("conditions")) {
      if (c.path("status").asString("").equalsIgnoreCase("false")
          && !c.path("message").asString("").isBlank()) {
        return c.path("message").asString();
      }
    }
    return null;
  }

  private Map<String, Object> setRequest(Options o, String planId) {
    if (o.values("file").isEmpty()) {
      throw new CliException(o.verb + " needs the .sql files: -f DIR|FILE");
    }
    List<Path> files = o.files();
    if (files.isEmpty()) {
      throw new CliException("no .sql file found in " + o.values("file"));
    }
    List<Map<String, String>> bodies = new ArrayList<>();
    for (Path file : files) {
      try {
        bodies.add(Map.of("name", file.toString(), "sql", Files.readString(file)));
      } catch (IOException e) {
        throw new CliException("cannot read " + file + ": " + e.getMessage());
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("files", bodies);
    body.put("prune", o.has("prune"));
    if (planId != null) {
      body.put("planId", planId);
    }
    return body;
  }

  // ---- the other verbs ----

  private int status(CliClient client, Options o) {
    if (o.args.isEmpty()) {
      requireDatabase(client, o);
      Answer answer = client.getAll(o.databasePath() + "/materialized-tables");
      if (!answer.ok()) {
        throw new CliException(answer.problem());
      }
      if (o.json) {
        out.println(answer.body().toPrettyString());
        return OK;
      }
      out.println(
          String.format(
              Locale.ROOT,
              STATUS_ROW,
              "NAME",
              "PHASE",
              "MODE",
              "FRESHNESS",
              "LAG",
              "LAST REFRESH",
              "NEXT REFRESH"));
      for (JsonNode t : answer.body().path("items")) {
        JsonNode r = t.path("status").path("refresh");
        out.println(
            String.format(
                Locale.ROOT,
                STATUS_ROW,
                t.path("metadata").path("name").asString(),
                t.path("status").path("phase").asString(),
                r.path("refreshMode").asString("-"),
                interval(r.path("freshness")),
                r.path("lagSeconds").isNumber()
                    ? String.format(Locale.ROOT, "%.0f s", r.path("lagSeconds").asDouble())
                    : "-",
                r.path("lastRefresh").asString("-"),
                r.path("nextRefresh").asString("-")));
      }
      return OK;
    }
    Answer answer = client.get(o.tablePath(o.args.get(0)));
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    JsonNode t = answer.body();
    if (o.json) {
      out.println(t.toPrettyString());
      return OK;
    }
    JsonNode status = t.path("status");
    out.println(
        t.path("metadata").path("catalog").asString()
            + "."
            + t.path("metadata").path("database").asString()
            + "."
            + t.path("metadata").path("name").asString());
    out.println("  phase:      " + status.path("phase").asString());
    out.println(
        "  generation: "
            + t.path("metadata").path("generation").asLong()
            + " (observed "
            + status.path("observedGeneration").asLong()
            + ")");
    JsonNode r = status.path("refresh");
    if (!r.isMissingNode() && !r.isNull()) {
      out.println(
          "  refresh:    "
              + r.path("refreshMode").asString("-")
              + ", freshness "
              + interval(r.path("freshness"))
              + ", lag "
              + r.path("lagSeconds").asString("-")
              + " s");
    }
    out.println("  job:        " + status.path("job").path("id").asString("-"));
    String cause = cause(t);
    if (cause != null) {
      out.println("  detail:     " + cause);
    }
    return "FAILED".equals(status.path("phase").asString()) ? ERROR : OK;
  }

  private int statement(CliClient client, Options o, String template) {
    String name = o.oneName();
    return runStatement(client, o, String.format(Locale.ROOT, template, o.qualified(name)));
  }

  private int refresh(CliClient client, Options o) {
    String name = o.oneName();
    StringBuilder sql =
        new StringBuilder("ALTER MATERIALIZED TABLE " + o.qualified(name) + " REFRESH");
    List<String> partitions = o.values("partition");
    if (!partitions.isEmpty()) {
      List<String> parts = new ArrayList<>();
      for (String p : partitions) {
        int eq = p.indexOf('=');
        if (eq <= 0) {
          throw new CliException("--partition takes key=value, not '" + p + "'");
        }
        parts.add(
            "`"
                + p.substring(0, eq).replace("`", "``")
                + "` = '"
                + p.substring(eq + 1).replace("'", "''")
                + "'");
      }
      sql.append(" PARTITION (").append(String.join(", ", parts)).append(')');
    }
    return runStatement(client, o, sql.toString());
  }

  private int runStatement(CliClient client, Options o, String sql) {
    Answer answer =
        client.post(
            "/v1/statements",
            Map.of("statement", sql, "catalog", o.catalog, "database", o.database));
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    if (o.json) {
      out.println(answer.body().toPrettyString());
    } else {
      for (JsonNode r : answer.body().path("results")) {
        out.println(r.path("outcome").asString() + ": " + r.path("message").asString(""));
      }
    }
    return OK;
  }

  private int drop(CliClient client, Options o) {
    String name = o.oneName();
    Answer answer = client.delete(o.tablePath(name));
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    if (o.json) {
      out.println(answer.body() == null ? "{}" : answer.body().toPrettyString());
    } else {
      out.println(
          "Dropping " + o.qualified(name) + ": its job, topic and subjects are being removed");
    }
    return OK;
  }

  private int events(CliClient client, Options o) {
    if (o.args.isEmpty()) {
      requireDatabase(client, o);
    }
    String path =
        o.args.isEmpty() ? o.databasePath() + "/events" : o.tablePath(o.args.get(0)) + "/events";
    if (o.has("follow")) {
      client.stream(path + "?follow=true", e -> printEvent(o, e));
      return OK;
    }
    Answer answer = client.getAll(path);
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    if (o.json) {
      out.println(answer.body().path("items").toPrettyString());
      return OK;
    }
    for (JsonNode e : answer.body().path("items")) {
      printEvent(o, e);
    }
    return OK;
  }

  private void printEvent(Options o, JsonNode e) {
    if (o.json) {
      out.println(e.toString());
    } else {
      String table = e.path("table").asString("");
      out.println(
          e.path("at").asString()
              + "  "
              + (table.isEmpty() ? "" : table + "  ")
              + String.format(
                  Locale.ROOT,
                  "%-7s %-22s ",
                  e.path("type").asString(),
                  e.path("reason").asString())
              + e.path("message").asString(""));
    }
    out.flush();
  }

  private int lineage(CliClient client, Options o) {
    String format = o.value("format");
    if (format == null) {
      format = o.json ? "json" : "mermaid";
    }
    if (!Set.of("json", "mermaid", "dot").contains(format)) {
      throw new CliException("--format is mermaid, dot or json, not '" + format + "'");
    }
    String query = "?format=" + format;
    if (o.explicitDatabase) {
      query +=
          "&catalog=" + CliClient.encode(o.catalog) + "&database=" + CliClient.encode(o.database);
    }
    Answer answer = client.getText("/v1/lineage" + query, "*/*");
    if (!answer.ok()) {
      throw new CliException(answer.problem());
    }
    out.print(format.equals("json") ? answer.body().toPrettyString() + "\n" : answer.text());
    return OK;
  }

  /**
   * A database that does not exist is an error, said before anything else is asked (events of a
   * missing database are a 404 too, with the service's words). A key that may not list the
   * catalog's databases skips the check.
   */
  private static void requireDatabase(CliClient client, Options o) {
    Answer databases = client.getAll("/v1/catalogs/" + CliClient.encode(o.catalog) + "/databases");
    if (databases.status() == 403) {
      return;
    }
    boolean found = false;
    if (databases.ok()) {
      for (JsonNode d : databases.body().path("items")) {
        found |= d.path("name").asString("").equals(o.database);
      }
    } else if (databases.status() != 404) {
      throw new CliException(databases.problem());
    }
    if (!found) {
      throw new CliException(
          "there is no database "
              + o.catalog
              + "."
              + o.database
              + " (--catalog and --database, or TRIBUTARY_CATALOG and TRIBUTARY_DATABASE)");
    }
  }

  private static String nameOf(String qualified) {
    return qualified.substring(qualified.lastIndexOf('.') + 1);
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("Interrupted");
    }
  }
}
