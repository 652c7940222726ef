package dev.tributary.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The command line against the running service on the real stack: plan's diff and exit codes, apply
 * that waits until the tables run (or fail), prune, JSON output, and the jar itself.
 */
@TributaryIT
class CliIT {

  @LocalServerPort int port;
  @TempDir Path dir;
  Api api;
  String database;
  String suffix;

  @BeforeEach
  void setUp() {
    api = new Api(port);
    suffix = UUID.randomUUID().toString().substring(0, 6);
    database = "cli_" + suffix;
  }

  /** What one run printed, and its exit code. */
  record Run(int code, String out, String err) {
    List<String> lines() {
      return Arrays.stream(out.split("\n")).map(String::strip).toList();
    }
  }

  private Run cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env =
        Map.of(
            "TRIBUTARY_URL",
            "http://127.0.0.1:" + port,
            "TRIBUTARY_API_KEY",
            LocalStack.get().adminApiKey(),
            "TRIBUTARY_CATALOG",
            "examples",
            "TRIBUTARY_DATABASE",
            database);
    int code =
        new Cli(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env,
                false)
            .run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private void write(String file, String sql) throws IOException {
    Files.writeString(dir.resolve(file), sql);
  }

  private String table(String name) {
    return name + "_" + suffix;
  }

  private String mt(String name, String where) {
    return "CREATE MATERIALIZED TABLE "
        + table(name)
        + " FRESHNESS = INTERVAL '5' SECOND AS SELECT order_id, price FROM"
        + " examples.marketplace.orders WHERE "
        + where
        + ";\n";
  }

  private static String line(Run run, String prefix) {
    return run.lines().stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
  }

  @Test
  void shouldPlanApplyAndPruneAFolderWithTerraformExitCodes() throws IOException {
    write("02_changed.sql", mt("changed", "price > 10"));
    write("03_same.sql", mt("same", "price > 20"));
    Run first = cli("apply", "-f", dir.toString(), "--wait", "3m");
    assertThat(first.code()).as(first.out() + first.err()).isZero();
    assertThat(first.out()).contains("+ create    examples." + database + "." + table("changed"));
    assertThat(api.get(path("changed")).body().path("status").path("phase").asString())
        .isEqualTo("RUNNING");

    write("01_new.sql", mt("new", "price > 30"));
    write("02_changed.sql", mt("changed", "price > 11"));
    write("04_invalid.sql", "CREATE MATERIALIZED TABLE broken AS SELEC order_id FROM x;\n");
    Run withInvalid = cli("plan", "-f", dir.toString());
    assertThat(withInvalid.code()).as(withInvalid.out() + withInvalid.err()).isEqualTo(1);
    String qualified = "examples." + database + ".";
    assertThat(line(withInvalid, "+ create")).isEqualTo("+ create    " + qualified + table("new"));
    assertThat(line(withInvalid, "~ evolve"))
        .startsWith("~ evolve    " + qualified + table("changed"));
    assertThat(line(withInvalid, "= unchanged"))
        .isEqualTo("= unchanged " + qualified + table("same"));
    assertThat(line(withInvalid, "! rejected"))
        .startsWith("! rejected  " + dir.resolve("04_invalid.sql") + ":1:")
        .contains("SQL_SYNTAX_ERROR");
    assertThat(withInvalid.lines().stream().filter(l -> l.matches("^[+~=!-] .*"))).hasSize(4);

    Files.delete(dir.resolve("04_invalid.sql"));
    Run plan = cli("plan", "-f", dir.toString());
    assertThat(plan.code()).as(plan.out()).isEqualTo(2);
    assertThat(plan.lines().stream().filter(l -> l.matches("^[+~=!-] .*"))).hasSize(3);
    // Nothing was kept by either plan.
    assertThat(api.get(path("new")).status()).isEqualTo(404);

    Run apply = cli("apply", "-f", dir.toString(), "--wait", "3m");
    assertThat(apply.code()).as(apply.out() + apply.err()).isZero();
    assertThat(apply.out()).contains(qualified + table("new")).contains("RUNNING");
    Run again = cli("plan", "-f", dir.toString());
    assertThat(again.code()).as(again.out()).isZero();
    assertThat(again.lines().stream().filter(l -> l.startsWith("= unchanged"))).hasSize(3);

    Files.delete(dir.resolve("01_new.sql"));
    Run prunePlan = cli("plan", "-f", dir.toString(), "--prune");
    assertThat(prunePlan.code()).isEqualTo(2);
    assertThat(line(prunePlan, "- drop")).isEqualTo("- drop      " + qualified + table("new"));
    Run plainPlan = cli("plan", "-f", dir.toString());
    assertThat(plainPlan.code()).as("without --prune nothing is dropped").isZero();
    Run prune = cli("apply", "-f", dir.toString(), "--prune", "--wait", "3m");
    assertThat(prune.code()).as(prune.out() + prune.err()).isZero();
    assertThat(prune.out()).contains(qualified + table("new") + " ").contains("DROPPED");
    assertThat(api.get(path("new")).status()).isEqualTo(404);
    assertThat(api.get(path("same")).body().path("status").path("phase").asString())
        .isEqualTo("RUNNING");
  }

  @Test
  void shouldPlanPipelineTablesAndFlowsAsDeclarationsAndPruneAFlow() throws IOException {
    String pipe = table("pipe");
    String flow = table("more");
    write(
        "01_pipe.sql",
        "CREATE TABLE "
            + pipe
            + " FLOW INSERT BY NAME SELECT order_id, price FROM examples.marketplace.orders;\n");
    write(
        "02_flow.sql",
        "CREATE FLOW "
            + flow
            + " AS INSERT INTO "
            + pipe
            + " BY NAME SELECT order_id, price FROM examples.marketplace.orders WHERE price > 90;\n");
    Run apply = cli("apply", "-f", dir.toString(), "--wait", "3m");
    assertThat(apply.code()).as(apply.out() + apply.err()).isZero();
    String qualified = "examples." + database + ".";
    assertThat(apply.out())
        .contains("+ create    " + qualified + pipe)
        .contains("+ create    " + qualified + flow);

    Run again = cli("plan", "-f", dir.toString());
    assertThat(again.code()).as(again.out()).isZero();
    assertThat(line(again, "= unchanged " + qualified + pipe)).isNotNull();
    assertThat(line(again, "= unchanged " + qualified + flow)).isNotNull();

    write(
        "02_flow.sql",
        "CREATE FLOW "
            + flow
            + " AS INSERT INTO "
            + pipe
            + " BY NAME SELECT order_id, price FROM examples.marketplace.orders WHERE price > 95;\n");
    Run changed = cli("plan", "-f", dir.toString());
    assertThat(changed.code()).isEqualTo(1);
    assertThat(line(changed, "! rejected"))
        .startsWith("! rejected  " + dir.resolve("02_flow.sql") + ":1:1  CONFLICT")
        .contains("not changed in place");

    Files.delete(dir.resolve("02_flow.sql"));
    Run prunePlan = cli("plan", "-f", dir.toString(), "--prune");
    assertThat(prunePlan.code()).as(prunePlan.out()).isEqualTo(2);
    assertThat(line(prunePlan, "- drop")).isEqualTo("- drop      " + qualified + flow);
    Run prune = cli("apply", "-f", dir.toString(), "--prune", "--wait", "3m");
    assertThat(prune.code()).as(prune.out() + prune.err()).isZero();
    assertThat(api.get(path("pipe") + "/flows").text()).doesNotContain(flow);
    assertThat(cli("plan", "-f", dir.toString(), "--prune").code()).isZero();
  }

  @Test
  void shouldExitNonZeroNamingTheTableAndTheCauseWhenAQueryFailsAtRuntime() throws IOException {
    write(
        "broken.sql",
        "CREATE MATERIALIZED TABLE "
            + table("broken")
            + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, CAST(order_id AS INT) AS n"
            + " FROM examples.marketplace.orders;\n");
    Run apply = cli("apply", "-f", dir.toString(), "--wait", "4m");
    assertThat(apply.code()).isEqualTo(1);
    assertThat(apply.err())
        .contains("examples." + database + "." + table("broken") + " FAILED")
        .contains("For input string");
  }

  @Test
  void shouldRefuseAStaleOrRejectedApplyAndAnswerInJson() throws IOException {
    write("a.sql", mt("stale", "price > 1"));
    Run json = cli("plan", "-f", dir.toString(), "--output", "json");
    assertThat(json.code()).isEqualTo(2);
    JsonNode plan = CliClient.JSON.readTree(json.out());
    assertThat(plan.path("objects").path(0).path("action").asString()).isEqualTo("CREATE");
    String planId = plan.path("planId").asString();

    write("a.sql", mt("stale", "price > 2"));
    Run stale = cli("apply", "-f", dir.toString(), "--plan-id", planId);
    assertThat(stale.code()).isEqualTo(1);
    assertThat(stale.err()).contains("PLAN_STALE");
    assertThat(api.get(path("stale")).status()).isEqualTo(404);

    write("b.sql", "ALTER MATERIALIZED TABLE x SUSPEND;\n");
    Run rejected = cli("apply", "-f", dir.toString());
    assertThat(rejected.code()).isEqualTo(1);
    assertThat(line(rejected, "! rejected"))
        .contains("b.sql:1:1")
        .contains("UNSUPPORTED_STATEMENT");
    assertThat(api.get(path("stale")).status())
        .as("a rejected file applies nothing")
        .isEqualTo(404);

    // The service refuses such a set too, when asked to apply it directly: a file that fails
    // while the set runs (it reads a table that does not exist) keeps the earlier file's table out.
    String orphan =
        "  CREATE MATERIALIZED TABLE " + table("orphan") + " AS SELECT x FROM nosuch_" + suffix;
    Map<String, Object> set =
        Map.of(
            "files",
            List.of(
                Map.of("name", "a.sql", "sql", mt("stale", "price > 2")),
                Map.of("name", "c.sql", "sql", "\n" + orphan)));
    Api.Answer refused = api.post("/v1/catalogs/examples/databases/" + database + "/apply", set);
    assertThat(refused.status()).as(refused.text()).isBetween(400, 499);
    assertThat(refused.body().path("file").asString()).isEqualTo("c.sql");
    // Where Flink found the problem in the query: the table it cannot find.
    assertThat(refused.body().path("line").asInt()).isEqualTo(2);
    assertThat(refused.body().path("column").asInt()).isEqualTo(orphan.indexOf("nosuch_") + 1);
    assertThat(api.get(path("stale")).status()).isEqualTo(404);
    assertThat(api.get(path("orphan")).status()).isEqualTo(404);
  }

  @Test
  void shouldRunAsTheJarsCommandLineWithoutStartingTheService() throws Exception {
    write("j.sql", mt("jar", "price > 3"));
    Path jar =
        Files.list(Path.of("target"))
            .filter(p -> p.getFileName().toString().matches("tributary-.*-SNAPSHOT\\.jar"))
            .findFirst()
            .orElseThrow();
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "plan",
                "-f",
                dir.toString(),
                "--url",
                "http://127.0.0.1:" + port,
                "--api-key",
                LocalStack.get().adminApiKey(),
                "--catalog",
                "examples",
                "--database",
                database)
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(out).isEqualTo(2);
    assertThat(out).contains("+ create    examples." + database + "." + table("jar"));
    assertThat(out).doesNotContain("Started TributaryApplication");

    // On a terminal (script(1) gives it one) apply redraws its block of lines in place.
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "no script(1) for a terminal");
    String command =
        String.join(
            " ",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            jar.toString(),
            "apply",
            "-f",
            dir.toString(),
            "--stable",
            "3s",
            "--wait",
            "3m");
    ProcessBuilder onTerminal =
        new ProcessBuilder("/usr/bin/script", "-qec", command, "/dev/null")
            .redirectErrorStream(true);
    onTerminal.environment().remove("CI");
    onTerminal.environment().put("TRIBUTARY_URL", "http://127.0.0.1:" + port);
    onTerminal.environment().put("TRIBUTARY_API_KEY", LocalStack.get().adminApiKey());
    onTerminal.environment().put("TRIBUTARY_CATALOG", "examples");
    onTerminal.environment().put("TRIBUTARY_DATABASE", database);
    Process applying = onTerminal.start();
    String shown = new String(applying.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(applying.waitFor()).as(shown).isZero();
    assertThat(shown)
        .as("the cursor moves up over the object's line and clears it")
        .contains("\033[1A")
        .contains("\r\033[2Kok examples." + database + "." + table("jar"));
  }

  @Test
  void shouldRunFromTheScriptAndTheCliJarTheBuildWrites() throws Exception {
    write("s.sql", mt("script", "price > 3"));
    ProcessBuilder script =
        new ProcessBuilder("bin/tributary", "plan", "-f", dir.toString(), "--catalog", "examples")
            .redirectErrorStream(true);
    script.environment().put("JAVA_HOME", System.getProperty("java.home"));
    script.environment().put("TRIBUTARY_URL", "http://127.0.0.1:" + port);
    script.environment().put("TRIBUTARY_API_KEY", LocalStack.get().adminApiKey());
    script.environment().put("TRIBUTARY_DATABASE", database);
    Process plan = script.start();
    String planned = new String(plan.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(plan.waitFor()).as(planned).isEqualTo(2);
    assertThat(planned).contains("+ create    examples." + database + "." + table("script"));

    script.command("bin/tributary", "stauts");
    Process typo = script.start();
    String refused = new String(typo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(typo.waitFor()).as(refused).isEqualTo(1);
    assertThat(refused).contains("unknown verb stauts").contains("tributary status");
  }

  @Test
  void shouldPrintLineageAndStatus() throws IOException {
    write("l.sql", mt("lin", "price > 4"));
    assertThat(cli("apply", "-f", dir.toString(), "--wait", "3m").code()).isZero();
    Run mermaid = cli("lineage", "--database", database);
    assertThat(mermaid.code()).isZero();
    assertThat(mermaid.out()).startsWith("flowchart LR").contains("examples.marketplace.orders");
    Run events = cli("events", table("lin"));
    assertThat(events.code()).isZero();
    assertThat(events.out()).contains("Created").contains("JobRunning");
    Run status = cli("status");
    assertThat(line(status, table("lin"))).contains("RUNNING");
    Run nowhere = cli("status", "--database", "nosuch_" + suffix);
    assertThat(nowhere.code()).as(nowhere.out()).isEqualTo(1);
    assertThat(nowhere.err()).contains("there is no database examples.nosuch_" + suffix);
    Run suspend = cli("suspend", table("lin"));
    assertThat(suspend.code()).as(suspend.err()).isZero();
    api.awaitPhase(database, table("lin"), "STOPPED");
    Run drop = cli("drop", table("lin"));
    assertThat(drop.code()).as(drop.err()).isZero();
  }

  private String path(String name) {
    return "/v1/catalogs/examples/databases/" + database + "/materialized-tables/" + table(name);
  }

  @Test
  void shouldEndEventsFollowWithAnErrorOnceItsKeyExpires() throws Exception {
    Instant expiry = Instant.now().plusSeconds(4);
    JsonNode key =
        new Api(port)
            .post(
                "/v1/api-keys",
                Map.of(
                    "name",
                    "follow-" + UUID.randomUUID().toString().substring(0, 8),
                    "grants",
                    List.of("viewer:examples.marketplace"),
                    "expiresAt",
                    expiry.toString()))
            .body();
    CompletableFuture<Run> follow =
        CompletableFuture.supplyAsync(
            () ->
                cli(
                    "events",
                    "--follow",
                    "--database",
                    "marketplace",
                    "--api-key",
                    key.path("secret").asString()));
    Run ended = follow.get(30, TimeUnit.SECONDS);
    assertThat(Instant.now()).isAfter(expiry);
    assertThat(ended.code()).isEqualTo(1);
    assertThat(ended.err()).contains("expired");
  }
}
