package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.tributary.Api;
import dev.tributary.local.LocalStack;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Webhooks end to end on real processes: a receiver on loopback (the JDK's HTTP server), the
 * service as its own JVM on the local stack. A subscription's URL is checked by the connector
 * policy; a table's events are posted, signed; the receiver refuses the first attempts, the service
 * is killed (SIGKILL) with the delivery pending, and after a restart the same event arrives, with a
 * signature the receiver verifies on its own, and the delivery log says DELIVERED.
 */
class WebhooksIT {

  static final JsonMapper JSON = JsonMapper.builder().build();

  /** One request the receiver got, and the status it answered. */
  record Received(String delivery, String event, String signature, String body, int answered) {}

  @Test
  void shouldDeliverSignedEventsAtLeastOnceAcrossAKill() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    List<Received> received = new CopyOnWriteArrayList<>();
    AtomicInteger answer = new AtomicInteger(503);
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          int status = answer.get();
          var headers = exchange.getRequestHeaders();
          received.add(
              new Received(
                  headers.getFirst("Tributary-Delivery"),
                  headers.getFirst("Tributary-Event"),
                  headers.getFirst("Tributary-Signature"),
                  body,
                  status));
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    receiver.start();
    String base = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/";
    Map<String, String> env = stack.environment("hooks_" + uid);
    env.put("TRIBUTARY_SECURITY_CONNECTORS_DEFAULTS_URLS", base);
    env.put("TRIBUTARY_WEBHOOKS_POLL_INTERVAL", "200ms");
    String hooks = "/v1/catalogs/hooks/databases/alerts/webhooks";
    Path logs = Path.of("target", "faults", "webhooks-" + uid);
    try (ServiceProcess service = new ServiceProcess(env, logs)) {
      service.start();
      Api api = service.api();

      // Refused at the door: a URL the policy does not allow, an event filter that means nothing.
      Api.Answer elsewhere =
          api.post(hooks, Map.of("url", "http://127.0.0.1:1/hook", "events", List.of("*")));
      assertThat(elsewhere.status()).as(elsewhere.text()).isEqualTo(403);
      assertThat(elsewhere.body().path("code").asString()).isEqualTo("CONNECTOR_NOT_ALLOWED");
      Api.Answer nonsense =
          api.post(hooks, Map.of("url", base + "hook", "events", List.of("job failed")));
      assertThat(nonsense.status()).as(nonsense.text()).isEqualTo(400);
      assertThat(api.get(hooks).body().path("items").size()).isZero();

      Api.Answer created =
          api.post(
              hooks,
              Map.of(
                  "url", base + "hook", "events", List.of("JobSubmitted"), "description", "pager"));
      assertThat(created.status()).as(created.text()).isEqualTo(201);
      String secret = created.body().path("secret").asString();
      String webhook = created.body().path("id").asString();
      assertThat(secret).startsWith("whsec_");
      assertThat(api.get(hooks + "/" + webhook).body().path("secret").isNull()).isTrue();

      Api.Answer table =
          api.sql("CREATE MATERIALIZED TABLE notified AS SELECT 1 AS n", "hooks", "alerts");
      assertThat(table.status()).as(table.text()).isEqualTo(200);
      // The receiver refuses: the delivery stays pending, tried again with backoff.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> received.stream().filter(r -> r.answered() == 503).count() >= 2);
      JsonNode pending = api.get(hooks + "/" + webhook + "/deliveries").body().path("items");
      assertThat(pending.size()).isEqualTo(1);
      assertThat(pending.path(0).path("state").asString()).isEqualTo("PENDING");
      assertThat(pending.path(0).path("lastStatus").asInt()).isEqualTo(503);
      String event = received.get(0).event();

      service.kill();
      answer.set(200);
      int before = received.size();
      service.start();
      Api restarted = service.api(); // a new port

      Received delivered =
          await()
              .atMost(Duration.ofSeconds(60))
              .until(
                  () ->
                      received.stream()
                          .skip(before)
                          .filter(r -> r.answered() == 200)
                          .findFirst()
                          .orElse(null),
                  r -> r != null);
      assertThat(delivered.event()).isEqualTo(event);
      verify(delivered, secret);
      JsonNode payload = JSON.readTree(delivered.body());
      assertThat(payload.path("event").path("reason").asString()).isEqualTo("JobSubmitted");
      assertThat(payload.path("table").path("catalog").asString()).isEqualTo("hooks");
      assertThat(payload.path("table").path("database").asString()).isEqualTo("alerts");
      assertThat(payload.path("table").path("name").asString()).isEqualTo("notified");
      assertThat(payload.path("webhook").asString()).isEqualTo(webhook);
      JsonNode log =
          await()
              .atMost(Duration.ofSeconds(10))
              .until(
                  () ->
                      restarted
                          .get(hooks + "/" + webhook + "/deliveries")
                          .body()
                          .path("items")
                          .path(0),
                  d -> "DELIVERED".equals(d.path("state").asString()));
      assertThat(log.path("attempts").asInt()).isGreaterThanOrEqualTo(3);
      assertThat(log.path("lastStatus").asInt()).isEqualTo(200);
      assertThat(log.path("eventReason").asString()).isEqualTo("JobSubmitted");
      // A tampered body does not verify: the check can fail.
      Received tampered =
          new Received(
              delivered.delivery(),
              delivered.event(),
              delivered.signature(),
              delivered.body().replace("notified", "notifiee"),
              200);
      assertThat(signatureMatches(tampered, secret)).isFalse();
    } finally {
      receiver.stop(0);
    }
  }

  /** The receiver's side of the signature: HMAC-SHA256 of "t.body", and a recent t. */
  static void verify(Received r, String secret) throws Exception {
    assertThat(signatureMatches(r, secret)).as(r.signature()).isTrue();
    long t = Long.parseLong(r.signature().split(",")[0].substring(2));
    assertThat(Math.abs(Instant.now().getEpochSecond() - t)).isLessThan(300);
  }

  static boolean signatureMatches(Received r, String secret) throws Exception {
    String[] parts = r.signature().split(",");
    String t = parts[0].substring("t=".length());
    String v1 = parts[1].substring("v1=".length());
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String expected =
        HexFormat.of()
            .formatHex(mac.doFinal((t + "." + r.body()).getBytes(StandardCharsets.UTF_8)));
    return expected.equals(v1);
  }
}
