package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Teams sharing one service, tried as a tenant with a key of its own would: another database's
 * topics by every route (a source over the topic, a topic pattern, client properties), code run
 * through client properties, and event streams that outlive their credentials.
 */
@TributaryIT
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenancyIT {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String ORDERS = "examples.marketplace.orders";

  @LocalServerPort int port;
  Api admin;

  @BeforeAll
  void setUp() {
    admin = new Api(port);
  }

  /** A new key's id and secret. */
  private record Key(String id, String secret) {}

  private Key key(Instant expiresAt, String... grants) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", "t-" + UUID.randomUUID().toString().substring(0, 8));
    body.put("grants", List.of(grants));
    if (expiresAt != null) {
      body.put("expiresAt", expiresAt.toString());
    }
    Answer created = admin.post("/v1/api-keys", body);
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return new Key(created.body().path("id").asString(), created.body().path("secret").asString());
  }

  private String source(String name, String options) {
    return "CREATE TABLE "
        + name
        + " (order_id BIGINT) WITH ('connector' = 'kafka', "
        + options
        + ", 'format' = 'json')";
  }

  private static void assertRefused(Answer answer, String option) {
    assertThat(answer.status()).as(answer.text()).isEqualTo(403);
    assertThat(answer.body().path("code").asString()).isEqualTo("CONNECTOR_NOT_ALLOWED");
    assertThat(answer.body().path("option").asString()).isEqualTo(option);
  }

  @Test
  void shouldRefuseAnotherDatabasesTopicByEveryRouteUnlessTheCallerMayReadIt() {
    Api other = new Api(port, key(null, "admin:examples.rs_other").secret());
    Answer direct = other.sql(source("src", "'topic' = '" + ORDERS + "'"), "examples", "rs_other");
    assertRefused(direct, "topic");
    // The caller cannot see examples.marketplace: the answer does not name it as the owner.
    assertThat(direct.body().path("detail").asString())
        .contains("another database")
        .doesNotContain("database examples.marketplace");
    assertRefused(
        other.sql(source("src", "'topic' = 'free_a;" + ORDERS + "'"), "examples", "rs_other"),
        "topic");
    assertRefused(
        other.sql(
            source("src", "'topic-pattern' = 'examples\\.marketplace\\..*'"),
            "examples",
            "rs_other"),
        "topic-pattern");
    assertRefused(
        other.sql(source("src", "'topic-pattern' = 'examples.*'"), "examples", "rs_other"),
        "topic-pattern");
    assertRefused(
        other.sql(source("src", "'topic-pattern' = 'x|" + ORDERS + "'"), "examples", "rs_other"),
        "topic-pattern");
    // A literal pattern is the topic itself.
    assertRefused(
        other.sql(source("src", "'topic-pattern' = '" + ORDERS + "'"), "examples", "rs_other"),
        "topic-pattern");
    assertThat(admin.get("/v1/catalogs/examples/databases/rs_other/tables/src").status())
        .isEqualTo(404);

    // The owner may register another source over its own topic, and so may a caller that holds
    // developer on the owning database.
    Api owner = new Api(port, key(null, "admin:examples.marketplace").secret());
    Answer own =
        owner.sql(source("orders_again", "'topic' = '" + ORDERS + "'"), "examples", "marketplace");
    assertThat(own.status()).as(own.text()).isEqualTo(200);
    Api both =
        new Api(
            port, key(null, "admin:examples.rs_both", "developer:examples.marketplace").secret());
    Answer allowed = both.sql(source("src", "'topic' = '" + ORDERS + "'"), "examples", "rs_both");
    assertThat(allowed.status()).as(allowed.text()).isEqualTo(200);
    // The refusal names the owner to a caller who may see it.
    Api seer =
        new Api(port, key(null, "admin:examples.rs_seer", "viewer:examples.marketplace").secret());
    Answer named = seer.sql(source("src", "'topic' = '" + ORDERS + "'"), "examples", "rs_seer");
    assertRefused(named, "topic");
    assertThat(named.body().path("detail").asString()).contains("database examples.marketplace");

    admin.sql("DROP TABLE orders_again", "examples", "marketplace");
    admin.sql("DROP TABLE src", "examples", "rs_both");
  }

  @Test
  void shouldLetADatabaseReadUnderItsOwnPrefixAndReportEarlierSourcesThatBreakIt() {
    String catalog = "tenancy";
    Api teamA = new Api(port, key(null, "admin:tenancy.team_a").secret());
    Api teamB = new Api(port, key(null, "admin:tenancy.team_b").secret());
    // Before any claim, team_b registers a source over a topic team_a will claim.
    Answer early = teamB.sql(source("early", "'topic' = 'team-a.early'"), catalog, "team_b");
    assertThat(early.status()).as(early.text()).isEqualTo(200);
    assertThat(admin.put("/v1/catalogs/no_such_catalog/connector-policy", null, Map.of()).status())
        .isEqualTo(404);
    Answer policy = tenancyPolicy(List.of(), Map.of("team_a", List.of("team-a.*")));
    assertThat(policy.status()).as(policy.text()).isEqualTo(200);
    assertThat(policy.body().path("violations").toString())
        .contains("tenancy.team_b.early reads team-a.early");
    assertThat(admin.get("/v1/catalogs/tenancy/connector-policy").body().path("violations").size())
        .isEqualTo(1);

    assertRefused(teamB.sql(source("b1", "'topic' = 'team-a.orders'"), catalog, "team_b"), "topic");
    assertRefused(
        teamB.sql(source("b2", "'topic-pattern' = 'team-a\\..*'"), catalog, "team_b"),
        "topic-pattern");
    assertRefused(
        teamB.sql(source("b3", "'topic-pattern' = 'team-b\\..*'"), catalog, "team_b"),
        "topic-pattern");
    Answer a1 = teamA.sql(source("a1", "'topic' = 'team-a.orders'"), catalog, "team_a");
    assertThat(a1.status()).as(a1.text()).isEqualTo(200);
    Answer a2 =
        teamA.sql(source("a2", "'topic-pattern' = 'team-a\\.orders-.*'"), catalog, "team_a");
    assertThat(a2.status()).as(a2.text()).isEqualTo(200);
    // Once team_b claims a prefix of its own, its pattern under it is allowed.
    tenancyPolicy(List.of(), Map.of("team_a", List.of("team-a.*"), "team_b", List.of("team-b.*")));
    Answer b4 = teamB.sql(source("b4", "'topic-pattern' = 'team-b\\..*'"), catalog, "team_b");
    assertThat(b4.status()).as(b4.text()).isEqualTo(200);
    // A pattern that would also reach another database's claim is refused, even to the claimer;
    // and a claim that now covers an earlier pattern lists it as a violation.
    Answer wider =
        tenancyPolicy(
            List.of(), Map.of("team_a", List.of("team-*"), "team_b", List.of("team-b.*")));
    assertThat(wider.body().path("violations").toString())
        .contains("tenancy.team_b.b4 reads pattern");
    assertRefused(
        teamA.sql(source("a3", "'topic-pattern' = 'team-.*'"), catalog, "team_a"), "topic-pattern");
    // The catalog's admin may widen the client settings a source may set.
    String interceptor = "'topic' = 'team-a.i', 'properties.interceptor.classes' = 'com.example.A'";
    assertRefused(
        teamA.sql(source("a4", interceptor), catalog, "team_a"), "properties.interceptor.classes");
    tenancyPolicy(List.of("interceptor.classes"), Map.of("team_a", List.of("team-a.*")));
    Answer widened = teamA.sql(source("a4", interceptor), catalog, "team_a");
    assertThat(widened.status()).as(widened.text()).isEqualTo(200);
    admin.delete("/v1/catalogs/tenancy/connector-policy", null);
  }

  /** Sets the tenancy catalog's whole policy: the Kafka connector, widened properties, claims. */
  private Answer tenancyPolicy(List<String> properties, Map<String, List<String>> topics) {
    return admin.put(
        "/v1/catalogs/tenancy/connector-policy",
        null,
        Map.of("connectors", List.of("kafka"), "properties", properties, "topics", topics));
  }

  @Test
  void shouldRefuseClientPropertiesThatLoadClassesRunCommandsOrInstallProviders() {
    Api owner = new Api(port, key(null, "admin:examples.props").secret());
    for (String key :
        List.of(
            "properties.sasl.kerberos.kinit.cmd",
            "properties.metric.reporters",
            "properties.security.providers",
            "properties.config.providers",
            "properties.interceptor.classes",
            "properties.sasl.login.callback.handler.class",
            "properties.sasl.client.callback.handler.class",
            "properties.partition.assignment.strategy",
            "properties.key.deserializer",
            "properties.not.a.kafka.setting")) {
      assertRefused(
          owner.sql(
              source("p", "'topic' = 'props_in', '" + key + "' = '/bin/sh -c id'"),
              "examples",
              "props"),
          key);
    }
    String jndi =
        "com.sun.security.auth.module.JndiLoginModule required"
            + " user.provider.url=\"ldap://127.0.0.1:1/x\";";
    assertRefused(
        owner.sql(
            source("p", "'topic' = 'props_in', 'properties.sasl.jaas.config' = '" + jndi + "'"),
            "examples",
            "props"),
        "properties.sasl.jaas.config");
    String twoModules =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
            + " password=\"a;b\"; com.sun.security.auth.module.Krb5LoginModule required;";
    assertRefused(
        owner.sql(
            source(
                "p", "'topic' = 'props_in', 'properties.sasl.jaas.config' = '" + twoModules + "'"),
            "examples",
            "props"),
        "properties.sasl.jaas.config");
    String plain =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
            + " password=\"p;w\";";
    Answer ok =
        owner.sql(
            source(
                "p",
                "'topic' = 'props_in', 'properties.sasl.jaas.config' = '"
                    + plain
                    + "', 'properties.group.id' = 'g', 'properties.client.rack' = 'r1'"),
            "examples",
            "props");
    assertThat(ok.status()).as(ok.text()).isEqualTo(200);
    admin.sql("DROP TABLE p", "examples", "props");
  }

  /** Reads an event stream in the background and notes when and how it ended. */
  private final class Stream {
    volatile boolean open;
    volatile Instant endedAt;
    volatile JsonNode error;
    final Thread reader;

    Stream(String path, String header, String value) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
              .header(header, value)
              .header("Accept", "text/event-stream")
              .build();
      reader =
          new Thread(
              () -> {
                try {
                  HttpResponse<InputStream> response =
                      HttpClient.newHttpClient()
                          .send(request, HttpResponse.BodyHandlers.ofInputStream());
                  assertThat(response.statusCode()).isEqualTo(200);
                  BufferedReader in =
                      new BufferedReader(
                          new InputStreamReader(response.body(), StandardCharsets.UTF_8));
                  String event = null;
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    open = true;
                    if (line.startsWith("event:")) {
                      event = line.substring(6).trim();
                    } else if (line.startsWith("data:") && "error".equals(event)) {
                      error = JSON.readTree(line.substring(5).trim());
                    }
                  }
                } catch (Exception e) {
                  // ended
                } finally {
                  endedAt = Instant.now();
                }
              });
      reader.setDaemon(true);
      reader.start();
    }
  }

  @Test
  void shouldEndEveryOpenStreamWithinAPollIntervalOnceItsCredentialIsGone() throws Exception {
    Answer created =
        admin.sql(
            "CREATE MATERIALIZED TABLE tenancy_streamed AS SELECT order_id FROM orders",
            "examples",
            "marketplace");
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    Key revoked = key(null, "viewer:examples.marketplace");
    Instant expiry = Instant.now().plusSeconds(8);
    Key expiring = key(expiry, "viewer:examples.marketplace");
    String session = pageSession(revoked.secret());
    String db = "/v1/catalogs/examples/databases/marketplace";
    List<Stream> ofRevoked =
        List.of(
            new Stream(db + "/events?follow=true", "Authorization", "Bearer " + revoked.secret()),
            new Stream(
                db + "/materialized-tables/tenancy_streamed/events?follow=true",
                "Authorization",
                "Bearer " + revoked.secret()),
            new Stream(
                "/ui/events?catalog=examples&database=marketplace&name=tenancy_streamed",
                "Cookie",
                UiCookie.NAME + "=" + session));
    Stream ofExpiring =
        new Stream(db + "/events?follow=true", "Authorization", "Bearer " + expiring.secret());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> ofRevoked.stream().allMatch(s -> s.open) && ofExpiring.open);
    Thread.sleep(1_000);
    assertThat(ofRevoked).allMatch(s -> s.endedAt == null);

    Instant revokedAt = Instant.now();
    assertThat(admin.delete("/v1/api-keys/" + revoked.id(), null).status()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> ofRevoked.stream().allMatch(s -> s.endedAt != null));
    for (Stream s : ofRevoked) {
      // One poll interval (500 ms) and the time to read the key again.
      assertThat(Duration.between(revokedAt, s.endedAt)).isLessThan(Duration.ofMillis(1_500));
      assertThat(s.error.path("code").asString()).isEqualTo("UNAUTHORIZED");
      assertThat(s.error.path("status").asInt()).isEqualTo(401);
    }
    assertThat(ofExpiring.endedAt).isNull();
    // The page session ended with its key.
    HttpResponse<String> page =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ui"))
                    .header("Cookie", UiCookie.NAME + "=" + session)
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(303);

    await().atMost(Duration.ofSeconds(15)).until(() -> ofExpiring.endedAt != null);
    assertThat(Duration.between(expiry, ofExpiring.endedAt)).isLessThan(Duration.ofMillis(1_500));
    assertThat(ofExpiring.error.path("code").asString()).isEqualTo("UNAUTHORIZED");
    admin.sql("DROP MATERIALIZED TABLE tenancy_streamed", "examples", "marketplace");
  }

  @Test
  void shouldKeepTheKeyOutOfThePageCookie() throws Exception {
    Key key = key(null, "viewer:examples.marketplace");
    String session = pageSession(key.secret());
    assertThat(session).startsWith("trs_").doesNotContain(key.secret());
    // A session is never an API credential.
    assertThat(new Api(port, session).get("/v1/catalogs").status()).isEqualTo(401);
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest page =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ui"))
            .header("Cookie", UiCookie.NAME + "=" + session)
            .build();
    assertThat(http.send(page, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    // A raw key in the cookie is not a session.
    HttpRequest withKey =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ui"))
            .header("Cookie", UiCookie.NAME + "=" + key.secret())
            .build();
    assertThat(http.send(withKey, HttpResponse.BodyHandlers.ofString()).statusCode())
        .isEqualTo(303);
    HttpRequest logout =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ui/logout"))
            .header("Cookie", UiCookie.NAME + "=" + session)
            .build();
    assertThat(http.send(logout, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(303);
    assertThat(http.send(page, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(303);
  }

  /** Signs in to the status page with a key: the session cookie's value. */
  private String pageSession(String key) throws Exception {
    HttpResponse<String> signedIn =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ui/session"))
                    .header("Authorization", "Bearer " + key)
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(signedIn.statusCode()).isEqualTo(204);
    String cookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(cookie).contains("HttpOnly").contains("SameSite=Strict").doesNotContain("Secure");
    return cookie.substring(cookie.indexOf('=') + 1, cookie.indexOf(';'));
  }

  @Test
  void shouldNameOnlyWhatTheCallerMaySeeAndReadNoScalarAsText() throws Exception {
    Answer owner =
        admin.sql(
            "CREATE MATERIALIZED TABLE tenancy_collide AS SELECT order_id FROM orders",
            "examples",
            "marketplace");
    assertThat(owner.status()).as(owner.text()).isEqualTo(200);
    Api stranger = new Api(port, key(null, "admin:examples.rs_stranger").secret());
    Answer in = stranger.sql(source("s_in", "'topic' = 'stranger_in'"), "examples", "rs_stranger");
    assertThat(in.status()).as(in.text()).isEqualTo(200);
    // The default topic template is {table}: the same name in another database collides.
    Answer collision =
        stranger.sql(
            "CREATE MATERIALIZED TABLE tenancy_collide AS SELECT order_id FROM s_in",
            "examples",
            "rs_stranger");
    assertThat(collision.status()).as(collision.text()).isEqualTo(409);
    assertThat(collision.text()).doesNotContain("marketplace").contains("another database");
    assertThat(collision.body().has("owner")).isFalse();
    admin.sql("DROP MATERIALIZED TABLE tenancy_collide", "examples", "marketplace");
    admin.sql("DROP TABLE s_in", "examples", "rs_stranger");

    assertThat(stranger.get("/v1/catalogs/examples/connector-policy").status()).isEqualTo(403);
    Answer numberAsName =
        admin.post("/v1/api-keys", Map.of("name", 1e300, "grants", List.of("viewer:*")));
    assertThat(numberAsName.status()).as(numberAsName.text()).isEqualTo(400);
    assertThat(numberAsName.body().path("detail").asString()).contains("'name'");

    // A protocol the server does not speak is the client's error, titled as such.
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket
          .getOutputStream()
          .write(
              "GET /v1/catalogs HTTP/9.9\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 505").contains("HTTP_VERSION_NOT_SUPPORTED");
      assertThat(answer).doesNotContain("Internal error");
    }
  }

  @Test
  void shouldShowAnotherDatabasesLineageOnlyAsFarAsTheCallersOwnQueriesNameIt() {
    // lin_down, in a database the upstream team may not see, reads their lin_up.
    Answer up =
        admin.sql(
            "CREATE MATERIALIZED TABLE lin_up AS SELECT order_id, price FROM " + ORDERS,
            "examples",
            "rs_lin_up");
    assertThat(up.status()).as(up.text()).isEqualTo(200);
    Answer down =
        admin.sql(
            "CREATE MATERIALIZED TABLE lin_down AS SELECT order_id FROM examples.rs_lin_up.lin_up",
            "examples",
            "rs_lin_down");
    assertThat(down.status()).as(down.text()).isEqualTo(200);
    String edge =
        "{\"from\":\"examples.rs_lin_up.lin_up\",\"to\":\"examples.rs_lin_down.lin_down\"}";
    assertThat(admin.get("/v1/lineage?catalog=examples").body().path("edges").toString())
        .contains(edge);

    // The upstream team does not learn the name of what reads its table, by either route.
    Api upstream = new Api(port, key(null, "admin:examples.rs_lin_up").secret());
    JsonNode seenUp = upstream.get("/v1/lineage?catalog=examples").body();
    assertThat(seenUp.toString())
        .contains("examples.rs_lin_up.lin_up")
        .doesNotContain("rs_lin_down");
    Answer show = upstream.sql("SHOW MATERIALIZED TABLE lin_up", "examples", "rs_lin_up");
    assertThat(show.status()).as(show.text()).isEqualTo(200);
    assertThat(show.text()).contains("examples.marketplace.orders").doesNotContain("rs_lin_down");

    // The downstream team sees where its rows come from (its query names it), but not the
    // upstream table's phase or compute pool, which are its owners'.
    Api downstream = new Api(port, key(null, "viewer:examples.rs_lin_down").secret());
    JsonNode seenDown = downstream.get("/v1/lineage?catalog=examples&database=rs_lin_down").body();
    assertThat(seenDown.path("edges").toString()).contains(edge);
    for (JsonNode node : seenDown.path("nodes")) {
      String id = node.path("id").asString();
      if (id.equals("examples.rs_lin_up.lin_up")) {
        assertThat(node.path("type").asString()).isEqualTo("MATERIALIZED_TABLE");
        assertThat(node.has("phase")).as(node.toString()).isFalse();
        assertThat(node.has("computePool")).as(node.toString()).isFalse();
      } else if (id.equals("examples.rs_lin_down.lin_down")) {
        assertThat(node.has("phase")).as(node.toString()).isTrue();
      } else {
        assertThat(id).doesNotStartWith("examples.rs_lin_up.").startsWith("examples.rs_lin_down.");
      }
    }
    assertThat(seenDown.path("nodes").toString()).contains("examples.rs_lin_up.lin_up");

    admin.sql("DROP MATERIALIZED TABLE lin_down", "examples", "rs_lin_down");
    admin.sql("DROP MATERIALIZED TABLE lin_up", "examples", "rs_lin_up");
  }

  @Test
  void shouldAnswerUnchangedToEveryLoserOfARaceOfIdenticalCreateOrAlter() throws Exception {
    String create =
        "CREATE OR ALTER MATERIALIZED TABLE tenancy_race AS SELECT order_id FROM orders";
    // Warm the validation cache so that the requests meet at the insert.
    assertThat(
            admin
                .post(
                    "/v1/statements",
                    Map.of(
                        "statement",
                        create,
                        "catalog",
                        "examples",
                        "database",
                        "marketplace",
                        "dryRun",
                        true))
                .status())
        .isEqualTo(200);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Answer>> answers = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        answers.add(pool.submit(() -> admin.sql(create, "examples", "marketplace")));
      }
      List<String> outcomes = new ArrayList<>();
      for (Future<Answer> f : answers) {
        Answer a = f.get();
        assertThat(a.status()).as(a.text()).isEqualTo(200);
        outcomes.add(a.body().path("results").get(0).path("outcome").asString());
      }
      assertThat(outcomes).containsOnly("CREATED", "UNCHANGED");
      assertThat(outcomes.stream().filter("CREATED"::equals).count()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
      admin.sql("DROP MATERIALIZED TABLE IF EXISTS tenancy_race", "examples", "marketplace");
    }
  }

  @Test
  void shouldPointFlinksValidationErrorAtItsLineAndColumnInTheScript() {
    Answer invalid =
        admin.sql(
            "SHOW TABLES;\nCREATE MATERIALIZED TABLE tenancy_pos\nAS SELECT order_id,\n  custo FROM orders",
            "examples",
            "marketplace");
    assertThat(invalid.status()).as(invalid.text()).isEqualTo(400);
    assertThat(invalid.body().path("detail").asString()).contains("Column 'custo' not found");
    assertThat(invalid.body().path("statementIndex").asInt()).isEqualTo(1);
    assertThat(invalid.body().path("line").asInt()).isEqualTo(4);
    assertThat(invalid.body().path("column").asInt()).isEqualTo(3);
  }

  @Test
  void shouldNotGiveANewTableATopicThatAnotherDatabasesSourceAlreadyReads() {
    Api spy = new Api(port, key(null, "admin:examples.rs_spy").secret());
    // One of the topics its source reads (the index of V19 finds it in the list).
    Answer early =
        spy.sql(source("spy", "'topic' = 'tenancy_spare;tenancy_payroll'"), "examples", "rs_spy");
    assertThat(early.status()).as(early.text()).isEqualTo(200);
    Api team = new Api(port, key(null, "developer:examples.marketplace").secret());
    Answer table =
        team.sql(
            "CREATE MATERIALIZED TABLE tenancy_payroll AS SELECT order_id FROM orders",
            "examples",
            "marketplace");
    assertThat(table.status()).as(table.text()).isEqualTo(409);
    assertThat(table.body().path("code").asString()).isEqualTo("ALREADY_EXISTS");
    assertThat(table.text()).contains("another database").doesNotContain("rs_spy");
    assertThat(
            admin
                .get(
                    "/v1/catalogs/examples/databases/marketplace/materialized-tables/tenancy_payroll")
                .status())
        .isEqualTo(404);
    admin.sql("DROP TABLE spy", "examples", "rs_spy");
  }
}
