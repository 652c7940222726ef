package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TcpProxy;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Dependencies that are slow or hang, with the service as real processes. Two services share one
 * database while the SQL Gateway answers slowly and leases expire under running passes: no table is
 * ever submitted twice. A JobManager that accepts connections and never answers, during a suspend
 * and during an evolution: the service keeps answering its API, the change waits, and it completes
 * once the JobManager is back.
 */
class SlowDependenciesIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";
  static final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldSubmitEveryTableOnceWithTwoServicesAndLeasesShorterThanAPass() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    try (TcpProxy gateway = new TcpProxy(stack.sqlGatewayUrl().getPort())) {
      Map<String, String> env = stack.environment("two_" + uid);
      env.put("TRIBUTARY_FLINK_SQL_GATEWAY_URL", "http://127.0.0.1:" + gateway.port());
      env.put("TRIBUTARY_RECONCILER_LEASE", "1s");
      env.put("TRIBUTARY_RECONCILER_LEASE_HEARTBEAT", "false");
      env.put("TRIBUTARY_RECONCILER_RESYNC", "5s");
      Path logs = Path.of("target", "faults", "two-" + uid);
      try (ServiceProcess a = new ServiceProcess(env, logs.resolve("a"));
          ServiceProcess b = new ServiceProcess(env, logs.resolve("b"))) {
        CompletableFuture<Duration> startA = CompletableFuture.supplyAsync(() -> start(a));
        start(b);
        startA.join();
        Api api = a.api();
        List<String> names = new ArrayList<>();
        StringBuilder script = new StringBuilder();
        for (int i = 0; i < 4; i++) {
          String name = "two_" + uid + "_" + i;
          names.add(name);
          script.append(
              "CREATE MATERIALIZED TABLE "
                  + name
                  + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM orders WHERE price > "
                  + (i * 10)
                  + ";\n");
        }
        Answer created = api.sql(script.toString(), "examples", "marketplace");
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        // Every gateway request now takes longer than a lease: passes outlive their claims.
        gateway.delay(Duration.ofMillis(1200));

        await()
            .atMost(Duration.ofMinutes(4))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> names.stream().allMatch(n -> api.phase(n).equals("RUNNING")));

        int doubles = 0;
        for (String name : names) {
          String tableId = api.get(TABLES + name).body().path("metadata").path("uid").asString();
          long submitted = jobsOf(tableId).count();
          assertThat(submitted).as("jobs ever submitted for " + name).isEqualTo(1);
          doubles += (int) submitted - 1;
        }
        long claimsLost = logLines(logs, "ended: ");
        System.out.printf(
            "Two services, lease 1 s, gateway +1.2 s per request: %d tables RUNNING, %d double"
                + " submissions, %d passes ended by a lost claim%n",
            names.size(), doubles, claimsLost);
        gateway.restore();
        api.dropMaterializedTables("examples", "marketplace");
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> names.stream().allMatch(n -> api.get(TABLES + n).status() == 404));
      }
    }
  }

  @Test
  void shouldSuspendAndEvolveOnceAHungJobManagerAnswersAgain() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    try (TcpProxy jobManager = new TcpProxy(stack.flinkRestUrl().getPort())) {
      Map<String, String> env = stack.environment("hung_" + uid);
      env.put("TRIBUTARY_FLINK_REST_URL", "http://127.0.0.1:" + jobManager.port());
      env.put("TRIBUTARY_FLINK_REQUEST_TIMEOUT", "2s");
      env.put("TRIBUTARY_RECONCILER_RESYNC", "3s");
      env.put("TRIBUTARY_RECONCILER_READINESS_WINDOW", "5s");
      try (ServiceProcess service =
          new ServiceProcess(env, Path.of("target", "faults", "hung-" + uid))) {
        service.start();
        Api api = service.api();
        String name = "hung_" + uid;
        api.ok(
            "CREATE MATERIALIZED TABLE "
                + name
                + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM orders");
        await().atMost(Duration.ofSeconds(90)).until(() -> api.phase(name).equals("RUNNING"));
        String tableId = api.get(TABLES + name).body().path("metadata").path("uid").asString();

        jobManager.hang();
        api.ok("ALTER MATERIALIZED TABLE " + name + " SUSPEND");
        long slowest = slowestGet(api, name, Duration.ofSeconds(8));
        assertThat(api.phase(name))
            .as("no savepoint while the JobManager hangs")
            .isNotEqualTo("STOPPED");
        jobManager.restore();
        await().atMost(Duration.ofSeconds(90)).until(() -> api.phase(name).equals("STOPPED"));
        assertThat(liveJobs(tableId)).isZero();

        api.ok("ALTER MATERIALIZED TABLE " + name + " RESUME");
        await().atMost(Duration.ofSeconds(90)).until(() -> api.phase(name).equals("RUNNING"));
        jobManager.hang();
        api.ok(
            "CREATE OR ALTER MATERIALIZED TABLE "
                + name
                + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price FROM orders WHERE"
                + " price > 10");
        slowest = Math.max(slowest, slowestGet(api, name, Duration.ofSeconds(8)));
        jobManager.restore();
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () -> {
                  JsonNode t = api.get(TABLES + name).body();
                  return t.path("status").path("phase").asString().equals("RUNNING")
                      && t.path("status").path("observedGeneration").asLong()
                          == t.path("metadata").path("generation").asLong();
                });
        assertThat(liveJobs(tableId)).as("one job after the evolution").isEqualTo(1);
        System.out.printf(
            "Hung JobManager during suspend and evolve: both completed once it answered; slowest"
                + " GET of the table meanwhile %d ms%n",
            slowest);
        assertThat(slowest).as("the API does not wait for the JobManager").isLessThan(1000);
        api.dropMaterializedTables("examples", "marketplace");
        await().atMost(Duration.ofSeconds(60)).until(() -> api.get(TABLES + name).status() == 404);
      }
    }
  }

  private static Duration start(ServiceProcess service) {
    try {
      return service.start();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** GETs the table for {@code during}; the slowest answer, in milliseconds. */
  private static long slowestGet(Api api, String name, Duration during) {
    long slowest = 0;
    long end = System.nanoTime() + during.toNanos();
    while (System.nanoTime() < end) {
      long start = System.nanoTime();
      assertThat(api.get(TABLES + name).status()).isEqualTo(200);
      slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
    }
    return slowest;
  }

  private static Stream<JsonNode> jobsOf(String tableId) throws Exception {
    return get(LocalStack.get().flinkRestUrl() + "/jobs/overview")
        .path("jobs")
        .valueStream()
        .filter(j -> j.path("name").asString().startsWith("tributary-" + tableId + "-"));
  }

  private static long liveJobs(String tableId) throws Exception {
    return jobsOf(tableId)
        .filter(
            j -> !List.of("FINISHED", "CANCELED", "FAILED").contains(j.path("state").asString()))
        .count();
  }

  private static long logLines(Path dir, String text) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    long n = 0;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        try (Stream<String> lines = Files.lines(f)) {
          n += lines.filter(l -> l.contains("Pass over table") && l.contains(text)).count();
        }
      }
    }
    return n;
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return JsonMapper.shared().readTree(response.body());
  }
}
