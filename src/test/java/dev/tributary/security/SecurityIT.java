package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Who may do what, checked on the running service with real API keys: every operation of the
 * OpenAPI document, by every kind of caller, against a table of the role each one needs (written
 * here, not read from the code: an operation missing from the table fails the test).
 */
@TributaryIT
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityIT {

  /** Who may call an operation. */
  enum Needs {
    /** Served to anyone: the problem-type pages. */
    NOTHING,
    ANY_KEY,
    VIEWER,
    DEVELOPER,
    ADMIN,
    CATALOG_ADMIN,
    GLOBAL_ADMIN
  }

  /** The role each operation needs in the database of its path; the spec this test checks. */
  static final Map<String, Needs> NEEDS = new LinkedHashMap<>();

  static {
    String db = "/v1/catalogs/{catalog}/databases/{database}";
    String t = db + "/materialized-tables/{name}";
    NEEDS.put("GET /v1/catalogs", Needs.ANY_KEY);
    // Every caller here holds a grant in the catalog; the list shows only its databases.
    NEEDS.put("GET /v1/catalogs/{catalog}/databases", Needs.ANY_KEY);
    NEEDS.put("GET /v1/catalogs/{catalog}/connector-policy", Needs.CATALOG_ADMIN);
    NEEDS.put("PUT /v1/catalogs/{catalog}/connector-policy", Needs.CATALOG_ADMIN);
    NEEDS.put("DELETE /v1/catalogs/{catalog}/connector-policy", Needs.CATALOG_ADMIN);
    NEEDS.put("GET " + db + "/tables", Needs.VIEWER);
    NEEDS.put("GET " + db + "/tables/{table}", Needs.VIEWER);
    NEEDS.put("GET " + db + "/materialized-tables", Needs.VIEWER);
    NEEDS.put("GET " + t, Needs.VIEWER);
    NEEDS.put("PUT " + t, Needs.DEVELOPER);
    NEEDS.put("DELETE " + t, Needs.DEVELOPER);
    NEEDS.put("GET " + t + "/events", Needs.VIEWER);
    NEEDS.put("GET " + t + "/expectations", Needs.VIEWER);
    NEEDS.put("GET " + t + "/flows", Needs.VIEWER);
    NEEDS.put("GET " + t + "/flows/{flow}", Needs.VIEWER);
    NEEDS.put("PUT " + t + "/flows/{flow}", Needs.DEVELOPER);
    NEEDS.put("DELETE " + t + "/flows/{flow}", Needs.DEVELOPER);
    NEEDS.put("POST " + t + "/flows/{flow}/suspend", Needs.DEVELOPER);
    NEEDS.put("POST " + t + "/flows/{flow}/resume", Needs.DEVELOPER);
    NEEDS.put("GET " + t + "/versions", Needs.VIEWER);
    NEEDS.put("GET " + t + "/versions/{version}", Needs.VIEWER);
    NEEDS.put("GET " + t + "/refreshes", Needs.VIEWER);
    NEEDS.put("POST " + t + "/refreshes", Needs.DEVELOPER);
    NEEDS.put("GET " + t + "/refreshes/{number}", Needs.VIEWER);
    NEEDS.put("GET " + t + "/preview", Needs.DEVELOPER);
    // A script needs what its statements need; this one only reads.
    NEEDS.put("POST /v1/statements", Needs.VIEWER);
    // Validation parses and prints only: any caller may lint a script.
    NEEDS.put("POST /v1/statements/validate", Needs.ANY_KEY);
    // A plan reads; applying the set (here one USE, which changes nothing) needs a developer.
    NEEDS.put("POST " + db + "/plans", Needs.VIEWER);
    NEEDS.put("POST " + db + "/apply", Needs.DEVELOPER);
    NEEDS.put("GET " + db + "/events", Needs.VIEWER);
    NEEDS.put("GET " + db + "/webhooks", Needs.VIEWER);
    NEEDS.put("POST " + db + "/webhooks", Needs.ADMIN);
    NEEDS.put("GET " + db + "/webhooks/{id}", Needs.VIEWER);
    NEEDS.put("DELETE " + db + "/webhooks/{id}", Needs.ADMIN);
    NEEDS.put("GET " + db + "/webhooks/{id}/deliveries", Needs.VIEWER);
    // The graph shows only the databases the caller may read.
    NEEDS.put("GET /v1/lineage", Needs.ANY_KEY);
    NEEDS.put("GET /problems", Needs.NOTHING);
    NEEDS.put("GET /problems/{code}", Needs.NOTHING);
    NEEDS.put("POST /v1/api-keys", Needs.GLOBAL_ADMIN);
    NEEDS.put("GET /v1/api-keys", Needs.GLOBAL_ADMIN);
    NEEDS.put("DELETE /v1/api-keys/{id}", Needs.GLOBAL_ADMIN);
    NEEDS.put("GET /v1/audit", Needs.GLOBAL_ADMIN);
    // Pools are shared by every catalog: any caller sees their names and room (not their URLs).
    NEEDS.put("GET /v1/compute-pools", Needs.ANY_KEY);
    NEEDS.put("GET /v1/compute-pools/{name}", Needs.ANY_KEY);
    NEEDS.put("PUT /v1/compute-pools/{name}", Needs.GLOBAL_ADMIN);
    NEEDS.put("DELETE /v1/compute-pools/{name}", Needs.GLOBAL_ADMIN);
    NEEDS.put("POST /v1/compute-pools/{name}/drain", Needs.GLOBAL_ADMIN);
    // A database's admin may not raise its own quota: its catalog's admin sets it.
    NEEDS.put("GET " + db + "/quotas", Needs.VIEWER);
    NEEDS.put("PUT " + db + "/quotas/{pool}", Needs.CATALOG_ADMIN);
    NEEDS.put("DELETE " + db + "/quotas/{pool}", Needs.CATALOG_ADMIN);
    // Default pools: a database's admin sets its database's, a catalog's admin the catalog's.
    NEEDS.put("GET /v1/catalogs/{catalog}", Needs.ANY_KEY);
    NEEDS.put("PUT /v1/catalogs/{catalog}", Needs.CATALOG_ADMIN);
    NEEDS.put("GET " + db, Needs.VIEWER);
    NEEDS.put("PUT " + db, Needs.ADMIN);
  }

  /** A caller and what it holds on examples.marketplace. */
  record Caller(String name, String token, Needs holds) {}

  @LocalServerPort int port;
  Api admin;
  final List<Caller> callers = new ArrayList<>();

  @BeforeAll
  void keys() {
    admin = new Api(port);
    callers.add(new Caller("viewer", key("viewer:examples.marketplace"), Needs.VIEWER));
    callers.add(new Caller("developer", key("developer:examples.marketplace"), Needs.DEVELOPER));
    callers.add(new Caller("db-admin", key("admin:examples.marketplace"), Needs.ADMIN));
    callers.add(new Caller("other-db", key("admin:examples.elsewhere"), Needs.ANY_KEY));
    callers.add(new Caller("catalog-admin", key("admin:examples.*"), Needs.CATALOG_ADMIN));
    callers.add(new Caller("global-admin", key("admin:*"), Needs.GLOBAL_ADMIN));
  }

  private String key(String... grants) {
    Answer created =
        admin.post(
            "/v1/api-keys",
            Map.of("name", "k-" + UUID.randomUUID().toString().substring(0, 8), "grants", grants));
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return created.body().path("secret").asString();
  }

  private static boolean allows(Needs holds, Needs needed) {
    if (needed == Needs.ANY_KEY || needed == Needs.NOTHING) {
      return true;
    }
    if (holds == Needs.ANY_KEY) {
      return false; // a grant elsewhere gives nothing here
    }
    return holds.ordinal() >= needed.ordinal();
  }

  private List<String[]> operations() {
    JsonNode paths = admin.get("/v3/api-docs").body().path("paths");
    List<String[]> operations = new ArrayList<>();
    for (String path : paths.propertyNames()) {
      for (String method : paths.path(path).propertyNames()) {
        operations.add(new String[] {method.toUpperCase(), path});
      }
    }
    return operations;
  }

  private static String concrete(String path) {
    return path.replace("{catalog}", "examples")
        .replace("{database}", "marketplace")
        .replace("{name}", "nosuch_secured")
        .replace("{table}", "orders")
        .replace("{flow}", "nosuch_flow")
        .replace("{version}", "1")
        .replace("{number}", "1")
        .replace("{id}", UUID.randomUUID().toString())
        .replace("{code}", "not-found")
        .replace("{pool}", "nosuch-pool");
  }

  private static Object body(String method, String path) {
    if (path.startsWith("/v1/statements")) {
      return Map.of(
          "statement",
          "SHOW MATERIALIZED TABLES",
          "catalog",
          "examples",
          "database",
          "marketplace");
    }
    if (path.endsWith("/plans") || path.endsWith("/apply")) {
      return Map.of("files", List.of(Map.of("name", "use.sql", "sql", "USE marketplace")));
    }
    if (path.equals("/v1/api-keys")) {
      return Map.of(
          "name",
          "made-" + UUID.randomUUID().toString().substring(0, 8),
          "grants",
          List.of("viewer:examples.marketplace"));
    }
    if (path.endsWith("/connector-policy") && method.equals("PUT")) {
      return Map.of("connectors", List.of("bogus name")); // allowed callers get a 400: unchanged
    }
    if (path.endsWith("/drain")) {
      return Map.of("to", "default"); // of a pool that does not exist: an allowed caller gets 404
    }
    if (path.equals("/v1/catalogs/{catalog}")
        || path.equals("/v1/catalogs/{catalog}/databases/{database}")) {
      return Map.of("defaultComputePool", "nosuch-pool"); // no such pool: 400, nothing is set
    }
    if (path.contains("/quotas/")) {
      return Map.of("maxTables", 1); // on a pool that does not exist: 404, and nothing is set
    }
    if (path.startsWith("/v1/compute-pools/")) {
      // A name no pool may have: an allowed caller gets a 400, and no pool is made.
      return Map.of("restUrl", "http://nosuch:8081", "sqlGatewayUrl", "http://nosuch:8083");
    }
    if (method.equals("PUT")) {
      return Map.of("spec", Map.of("stopped", true));
    }
    return method.equals("POST") ? Map.of() : null;
  }

  @Test
  void shouldHaveARuleForEveryOperation() {
    List<String> documented = operations().stream().map(o -> o[0] + " " + o[1]).toList();
    assertThat(NEEDS.keySet()).containsExactlyInAnyOrderElementsOf(documented);
  }

  @Test
  void shouldRefuseAnonymousCallersEverywhereWithAProblem() {
    Api anonymous = new Api(port, null);
    Api forged = new Api(port, "trb_" + "x".repeat(43));
    for (String[] op : operations()) {
      if (NEEDS.get(op[0] + " " + op[1]) == Needs.NOTHING) {
        assertThat(anonymous.call(op[0], concrete(op[1]), null).status()).as(op[1]).isEqualTo(200);
        continue;
      }
      for (Api caller : List.of(anonymous, forged)) {
        Answer answer = caller.call(op[0], concrete(op[1]), body(op[0], op[1]));
        assertThat(answer.status()).as(op[0] + " " + op[1]).isEqualTo(401);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.body().path("code").asString()).isEqualTo("UNAUTHORIZED");
      }
    }
  }

  @Test
  void shouldLetEachRoleDoExactlyWhatItsGrantAllows() {
    List<String> checked = new ArrayList<>();
    for (String[] op : operations()) {
      Needs needed = NEEDS.get(op[0] + " " + op[1]);
      for (Caller caller : callers) {
        Answer answer =
            new Api(port, caller.token()).call(op[0], concrete(op[1]), body(op[0], op[1]));
        String what = caller.name() + " " + op[0] + " " + op[1] + ": " + answer.text();
        if (allows(caller.holds(), needed)) {
          assertThat(answer.status()).as(what).isNotIn(401, 403);
        } else {
          assertThat(answer.status()).as(what).isEqualTo(403);
          assertThat(answer.contentType()).startsWith("application/problem+json");
          assertThat(answer.body().path("code").asString()).as(what).isEqualTo("FORBIDDEN");
          assertThat(answer.body().path("permission").asString()).as(what).isNotBlank();
        }
        checked.add(what);
      }
    }
    assertThat(checked).hasSize(NEEDS.size() * callers.size());
  }

  /** What each statement needs in examples.marketplace. */
  @Test
  void shouldCheckEachStatementAgainstTheRoleItNeeds() {
    Map<String, Needs> statements = new LinkedHashMap<>();
    statements.put("SHOW MATERIALIZED TABLES", Needs.VIEWER);
    statements.put("SHOW TABLES", Needs.VIEWER);
    statements.put("SHOW CREATE MATERIALIZED TABLE nosuch", Needs.VIEWER);
    statements.put("DESCRIBE orders", Needs.VIEWER);
    statements.put("SHOW FLOWS", Needs.VIEWER);
    statements.put("SELECT * FROM nosuch", Needs.DEVELOPER);
    statements.put("DROP MATERIALIZED TABLE IF EXISTS nosuch", Needs.DEVELOPER);
    statements.put("ALTER MATERIALIZED TABLE nosuch SUSPEND", Needs.DEVELOPER);
    statements.put("DROP FLOW IF EXISTS nosuch", Needs.DEVELOPER);
    statements.put("ALTER FLOW nosuch SUSPEND", Needs.DEVELOPER);
    statements.put("CREATE TABLE sec_src (a INT) WITH ('connector' = 'datagen')", Needs.ADMIN);
    // Reading a table of another database needs developer there too (CATALOG_ADMIN: only the
    // callers with a grant on both databases).
    statements.put(
        "CREATE MATERIALIZED TABLE sec_x AS SELECT * FROM examples.elsewhere.nosuch",
        Needs.CATALOG_ADMIN);
    for (Map.Entry<String, Needs> statement : statements.entrySet()) {
      for (Caller caller : callers) {
        Answer answer =
            new Api(port, caller.token()).sql(statement.getKey(), "examples", "marketplace");
        String what = caller.name() + ": " + statement.getKey() + ": " + answer.text();
        boolean allowed = allows(caller.holds(), statement.getValue());
        if (allowed) {
          assertThat(answer.body().path("code").asString()).as(what).isNotEqualTo("FORBIDDEN");
        } else {
          assertThat(answer.status()).as(what).isEqualTo(403);
          assertThat(answer.body().path("code").asString()).as(what).isEqualTo("FORBIDDEN");
        }
      }
    }
  }

  @Test
  void shouldListOnlyWhatTheCallerMaySee() {
    admin.ok("CREATE STREAMING TABLE sec_seen (id INT)");
    Api elsewhere = new Api(port, key("viewer:examples.elsewhere"));
    Api stranger = new Api(port, key("viewer:othercatalog.db"));

    assertThat(elsewhere.get("/v1/catalogs").body().path("items").findValuesAsString("name"))
        .containsExactly("examples");
    assertThat(stranger.get("/v1/catalogs").body().path("items").size()).isZero();
    assertThat(stranger.get("/v1/catalogs/examples/databases").status()).isEqualTo(403);
    assertThat(
            elsewhere
                .get("/v1/catalogs/examples/databases")
                .body()
                .path("items")
                .findValuesAsString("name"))
        .doesNotContain("marketplace");
    Answer schema =
        elsewhere.sql(
            "SELECT table_name FROM examples.information_schema.materialized_tables",
            "examples",
            "elsewhere");
    assertThat(schema.status()).as(schema.text()).isEqualTo(200);
    assertThat(schema.text()).doesNotContain("sec_seen");
    Answer mine =
        admin.sql(
            "SELECT table_name FROM examples.information_schema.materialized_tables",
            "examples",
            "marketplace");
    assertThat(mine.text()).contains("sec_seen");
    assertThat(elsewhere.sql("SHOW MATERIALIZED TABLES", "examples", "marketplace").status())
        .isEqualTo(403);
  }

  @Test
  void shouldApplyACatalogsPolicyAsItsAdminSetsIt() {
    String datagen = "CREATE TABLE gen (a INT) WITH ('connector' = 'datagen')";
    Api catalogAdmin = new Api(port, key("admin:policytest.*"));

    Answer before = catalogAdmin.sql(datagen, "policytest", "db");
    // A policy is set for a catalog that exists: 404 before its first table.
    Answer missing =
        catalogAdmin.call(
            "PUT",
            "/v1/catalogs/policytest/connector-policy",
            Map.of("connectors", List.of("kafka", "datagen")));
    Answer first =
        catalogAdmin.sql(
            "CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 'policytest_k',"
                + " 'format' = 'json')",
            "policytest",
            "db");
    Answer set =
        catalogAdmin.call(
            "PUT",
            "/v1/catalogs/policytest/connector-policy",
            Map.of("connectors", List.of("kafka", "datagen")));
    Answer allowed = catalogAdmin.sql(datagen, "policytest", "db");
    Answer elsewhere = admin.sql(datagen, "examples", "marketplace");
    Answer bad =
        catalogAdmin.call(
            "PUT",
            "/v1/catalogs/policytest/connector-policy",
            Map.of("bootstrapServers", List.of("not a server")));
    Answer notTheirs =
        catalogAdmin.call(
            "PUT", "/v1/catalogs/examples/connector-policy", Map.of("connectors", List.of("x")));
    Answer reset = catalogAdmin.call("DELETE", "/v1/catalogs/policytest/connector-policy", null);
    Answer after = catalogAdmin.sql(datagen.replace("gen (", "gen2 ("), "policytest", "db");

    assertThat(before.body().path("code").asString()).isEqualTo("CONNECTOR_NOT_ALLOWED");
    assertThat(missing.status()).as(missing.text()).isEqualTo(404);
    assertThat(first.status()).as(first.text()).isEqualTo(200);
    assertThat(set.status()).as(set.text()).isEqualTo(200);
    assertThat(set.body().path("connectors").toString()).isEqualTo("[\"kafka\",\"datagen\"]");
    // The service's own cluster stays allowed.
    assertThat(set.body().path("bootstrapServers").size()).isPositive();
    assertThat(allowed.status()).as(allowed.text()).isEqualTo(200);
    assertThat(elsewhere.body().path("code").asString()).isEqualTo("CONNECTOR_NOT_ALLOWED");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(notTheirs.status()).isEqualTo(403);
    assertThat(reset.status()).isEqualTo(200);
    assertThat(after.body().path("code").asString()).isEqualTo("CONNECTOR_NOT_ALLOWED");
    JsonNode audited =
        admin
            .get("/v1/audit?resource=connector-policy:policytest&outcome=CHANGED")
            .body()
            .path("items");
    assertThat(audited.findValuesAsString("action"))
        .containsExactly("connector-policy.reset", "connector-policy.replace");
    assertThat(audited.get(1).path("after").asString()).contains("datagen");
    JsonNode refused =
        admin
            .get("/v1/audit?resource=connector-policy:policytest&outcome=REFUSED")
            .body()
            .path("items");
    // Newest first: the invalid policy, then the PUT for a catalog that did not exist yet.
    assertThat(refused.findValuesAsString("action"))
        .containsExactly("PUT_CONNECTOR_POLICY", "PUT_CONNECTOR_POLICY");
    assertThat(refused.get(0).path("code").asString()).isEqualTo("VALIDATION_FAILED");
    assertThat(refused.get(1).path("code").asString()).isEqualTo("NOT_FOUND");
  }

  @Test
  void shouldStopAcceptingAKeyOnceRevokedOrExpired() throws Exception {
    Answer created =
        admin.post(
            "/v1/api-keys",
            Map.of(
                "name",
                "short-lived",
                "grants",
                List.of("viewer:*"),
                "expiresAt",
                Instant.now().plusSeconds(3).toString()));
    Answer revocable =
        admin.post("/v1/api-keys", Map.of("name", "revocable", "grants", List.of("viewer:*")));
    Api shortLived = new Api(port, created.body().path("secret").asString());
    Api revoked = new Api(port, revocable.body().path("secret").asString());
    assertThat(shortLived.get("/v1/catalogs").status()).isEqualTo(200);
    assertThat(revoked.get("/v1/catalogs").status()).isEqualTo(200);

    Answer revoke = admin.delete("/v1/api-keys/" + revocable.body().path("id").asString(), null);
    Thread.sleep(3500);

    assertThat(revoke.status()).as(revoke.text()).isEqualTo(200);
    assertThat(revoke.body().path("active").asBoolean()).isFalse();
    assertThat(revoked.get("/v1/catalogs").status()).isEqualTo(401);
    assertThat(shortLived.get("/v1/catalogs").status()).isEqualTo(401);
    // The list keeps both, and never a secret.
    Answer list = admin.get("/v1/api-keys?limit=1000");
    assertThat(list.body().findValuesAsString("name")).contains("short-lived", "revocable");
    assertThat(list.text())
        .doesNotContain(created.body().path("secret").asString())
        .doesNotContain(revocable.body().path("secret").asString());
  }

  @Test
  void shouldShowHealthDetailsAndMetricsToAdminsOnly() {
    Api anonymous = new Api(port, null);
    Api viewer = new Api(port, callers.get(0).token());

    Answer health = anonymous.get("/actuator/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body().path("status").asString()).isEqualTo("UP");
    assertThat(health.body().has("components")).isFalse();
    assertThat(health.text()).doesNotContain("127.0.0.1").doesNotContain("localhost");
    assertThat(anonymous.get("/actuator/health/liveness").status()).isEqualTo(200);
    assertThat(anonymous.get("/actuator/health/readiness").status()).isEqualTo(200);
    assertThat(viewer.get("/actuator/health").body().has("components")).isFalse();
    assertThat(admin.get("/actuator/health").body().path("components").has("flink")).isTrue();
    assertThat(anonymous.get("/actuator/prometheus").status()).isEqualTo(401);
    assertThat(viewer.get("/actuator/prometheus").status()).isEqualTo(403);
    assertThat(viewer.get("/actuator/info").status()).isEqualTo(403);
    JsonNode info = admin.get("/actuator/info").body();
    assertThat(info.path("build").path("version").asString()).as(info.toString()).isNotBlank();
    assertThat(info.path("build").path("time").asString()).isNotBlank();
    assertThat(info.path("git").path("commit").path("id").asString()).matches("[0-9a-f]{7,40}");
    assertThat(admin.get("/actuator/prometheus").status()).isEqualTo(200);
  }

  /**
   * The audit's log line of a change is written once, when it commits: not for a dry run, and not
   * for the first run of a CREATE that asks Flink and Kafka before it runs again with their
   * answers.
   */
  @Test
  void shouldLogAChangeOnceItCommitsAndNotForADryRun() {
    Logger audit = (Logger) LoggerFactory.getLogger("tributary.audit");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    audit.addAppender(lines);
    try {
      Map<String, Object> dryRun = new LinkedHashMap<>();
      dryRun.put(
          "statement",
          "CREATE MATERIALIZED TABLE sec_logged AS SELECT order_id, price FROM orders");
      dryRun.put("catalog", "examples");
      dryRun.put("database", "marketplace");
      dryRun.put("dryRun", true);
      assertThat(admin.post("/v1/statements", dryRun).status()).isEqualTo(200);
      admin.ok("CREATE MATERIALIZED TABLE sec_logged AS SELECT order_id, price FROM orders");
      admin.ok("DROP MATERIALIZED TABLE sec_logged");
    } finally {
      audit.detachAppender(lines);
    }

    assertThat(lines.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(line -> line.contains("examples.marketplace.sec_logged"))
        .hasSize(2)
        .anySatisfy(line -> assertThat(line).startsWith("Created "))
        .anySatisfy(line -> assertThat(line).startsWith("DropRequested "));
  }

  @Test
  void shouldAuditChangesAndRefusals() {
    Caller viewer = callers.get(0);
    Caller developer = callers.get(1);
    Api viewerApi = new Api(port, viewer.token());
    Api developerApi = new Api(port, developer.token());
    String keyName = keyName(viewer.token());
    String developerName = keyName(developer.token());

    Answer refused =
        viewerApi.sql("CREATE STREAMING TABLE sec_audited (id INT)", "examples", "marketplace");
    Answer created =
        developerApi.sql("CREATE STREAMING TABLE sec_audited (id INT)", "examples", "marketplace");
    Answer dropped = developerApi.sql("DROP TABLE sec_audited", "examples", "marketplace");
    Answer anonymous = new Api(port, null).sql("SHOW TABLES", "examples", "marketplace");

    assertThat(refused.status()).isEqualTo(403);
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    assertThat(dropped.status()).as(dropped.text()).isEqualTo(200);
    assertThat(anonymous.status()).isEqualTo(401);
    JsonNode byViewer =
        admin
            .get("/v1/audit?principal=" + keyName + "&resource=examples.marketplace.sec_audited")
            .body()
            .path("items");
    assertThat(byViewer.size()).isEqualTo(1);
    assertThat(byViewer.get(0).path("outcome").asString()).isEqualTo("REFUSED");
    assertThat(byViewer.get(0).path("status").asInt()).isEqualTo(403);
    assertThat(byViewer.get(0).path("code").asString()).isEqualTo("FORBIDDEN");
    assertThat(byViewer.get(0).path("action").asString()).isEqualTo("CREATE_PIPELINE_TABLE");
    assertThat(byViewer.get(0).path("resource").asString())
        .isEqualTo("examples.marketplace.sec_audited");

    JsonNode onTable =
        admin
            .get("/v1/audit?resource=examples.marketplace.sec_audited&outcome=CHANGED")
            .body()
            .path("items");
    assertThat(onTable.findValuesAsString("action")).containsExactly("DropRequested", "Created");
    assertThat(onTable.findValuesAsString("principal")).containsOnly(developerName);
    JsonNode drop = onTable.get(0);
    JsonNode create = onTable.get(1);
    assertThat(create.path("before").isNull()).isTrue();
    assertThat(create.path("after").asString()).contains("sec_audited");
    assertThat(drop.path("before").asString()).contains("sec_audited");
    assertThat(drop.path("after").isNull()).isTrue();
    assertThat(
            admin.get("/v1/audit?principal=anonymous&outcome=REFUSED").body().path("items").size())
        .isPositive();
    assertThat(admin.get("/v1/audit?limit=0").status()).isEqualTo(400);
  }

  private String keyName(String token) {
    return admin
        .get("/v1/api-keys?limit=1000")
        .body()
        .path("items")
        .valueStream()
        .filter(k -> token.startsWith(k.path("prefix").asString()))
        .map(k -> k.path("name").asString())
        .findFirst()
        .orElseThrow();
  }
}
