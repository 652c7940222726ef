package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TcpProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * 429 and 503 say when to come back: {@code Retry-After} in seconds, from the service's own waits
 * (a script slot's mean hold; the next dependency check), with the service as a real process, its
 * database behind a proxy that slows it (a script then holds its slot for seconds), then refuses.
 */
class RetryAfterIT {

  @Test
  void shouldSayWhenToRetryWhenBusyAndWhenADependencyIsDown() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    Map<String, String> env = stack.environment("retry_" + uid);
    URI database = URI.create(env.get("SPRING_DATASOURCE_URL").substring("jdbc:".length()));
    try (TcpProxy postgres = new TcpProxy(database.getPort())) {
      env.put(
          "SPRING_DATASOURCE_URL",
          "jdbc:postgresql://127.0.0.1:"
              + postgres.port()
              + database.getRawPath()
              + (database.getRawQuery() == null ? "" : "?" + database.getRawQuery()));
      env.put("TRIBUTARY_STATEMENTS_MAX_CONCURRENT", "1");
      env.put("TRIBUTARY_STATEMENTS_QUEUE_TIMEOUT", "1s");
      env.put("TRIBUTARY_METRICS_DEPENDENCY_INTERVAL", "20s");
      env.put("SPRING_DATASOURCE_HIKARI_CONNECTION_TIMEOUT", "2000");
      try (ServiceProcess service =
          new ServiceProcess(env, Path.of("target", "faults", "retry-" + uid))) {
        service.start();
        Api api = service.api();
        String create =
            "CREATE MATERIALIZED TABLE retry_"
                + uid
                + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM orders";
        assertThat(dryRun(api, create).status()).isEqualTo(200); // warm: sessions, catalogs
        // Each of a script's round trips to the database now takes 300 ms: it holds the only
        // slot for seconds, and the next script waits its 1 s for a turn.
        postgres.delay(Duration.ofMillis(300));
        CompletableFuture<Answer> slow = CompletableFuture.supplyAsync(() -> dryRun(api, create));
        Thread.sleep(300);
        Answer busy = dryRun(api, create);
        assertThat(busy.status()).as(busy.text()).isEqualTo(429);
        assertThat(busy.body().path("type").asString()).isEqualTo("/problems/too-many-requests");
        long busyWait = Long.parseLong(busy.headers().getFirst("Retry-After"));
        assertThat(busyWait).isPositive();
        assertThat(slow.get().status()).isEqualTo(200);

        // The metadata database goes away: pooled connections break, new ones are refused.
        postgres.delay(Duration.ZERO);
        postgres.cut();
        Answer down = api.get("/v1/catalogs/examples/databases/marketplace/materialized-tables");
        assertThat(down.status()).as(down.text()).isEqualTo(503);
        assertThat(down.body().path("code").asString()).isEqualTo("DEPENDENCY_UNAVAILABLE");
        assertThat(down.body().path("system").asString()).isEqualTo("database");
        long downWait = Long.parseLong(down.headers().getFirst("Retry-After"));
        assertThat(downWait).as("until the next dependency check").isBetween(1L, 20L);
        System.out.printf(
            "Retry-After: %d s on 429 (one slot, database 300 ms away), %d s on 503 (checks every 20 s)%n",
            busyWait, downWait);

        Answer page = service.anonymous().get(down.body().path("type").asString());
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body().path("code").asString()).isEqualTo("DEPENDENCY_UNAVAILABLE");
      }
    }
  }

  private static Answer dryRun(Api api, String statement) {
    return api.post(
        "/v1/statements",
        Map.of(
            "statement",
            statement,
            "catalog",
            "examples",
            "database",
            "marketplace",
            "dryRun",
            true));
  }
}
