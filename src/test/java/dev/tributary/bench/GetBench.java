package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.system.Json;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.StoredTables;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * GET of a table at 200 requests/s with 10,000 tables stored, as an open model: each request leaves
 * at its scheduled time whatever the earlier ones do, and its latency counts from that scheduled
 * time (a slow answer delays no later request, and no queueing is hidden). Errors are counted, not
 * dropped. The reconciler is off: only the API and PostgreSQL are measured.
 */
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class GetBench {

  static final int TABLES = Integer.getInteger("bench.tables", 10_000);
  static final int RATE = 200;
  static final int SECONDS = 20;

  @LocalServerPort int port;
  @Autowired MaterializedTableService tables;

  @Test
  void getATableAt200RequestsPerSecondWithTenThousandStored() throws Exception {
    String catalog = "get_" + UUID.randomUUID().toString().substring(0, 8);
    StoredTables.create(tables, catalog, TABLES);

    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String base =
        "http://127.0.0.1:"
            + port
            + "/v1/catalogs/"
            + catalog
            + "/databases/db/materialized-tables/t";
    for (int i = 0; i < 1000; i++) { // warm-up, not counted
      http.send(
          HttpRequest.newBuilder(URI.create(base + (i % TABLES)))
              .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
              .build(),
          HttpResponse.BodyHandlers.discarding());
    }

    int requests = RATE * SECONDS;
    long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
    long[] latencies = new long[requests];
    AtomicInteger errors = new AtomicInteger();
    CompletableFuture<?>[] answers = new CompletableFuture<?>[requests];
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    for (int n = 0; n < requests; n++) {
      long scheduled = start + n * interval;
      long wait = scheduled - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      int i = n;
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(base + ThreadLocalRandom.current().nextInt(TABLES)))
              .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
              .timeout(Duration.ofSeconds(10))
              .build();
      answers[n] =
          http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
              .handle(
                  (response, failure) -> {
                    latencies[i] = System.nanoTime() - scheduled;
                    if (failure != null || response.statusCode() != 200) {
                      errors.incrementAndGet();
                    }
                    return null;
                  });
    }
    CompletableFuture.allOf(answers).get(2, TimeUnit.MINUTES);
    double took = (System.nanoTime() - start) / 1e9;
    Arrays.sort(latencies);
    System.out.printf(
        "BENCH get: %d tables stored; %d GETs of random tables scheduled at %d/s over %.1f s;"
            + " latency from the scheduled send: p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f"
            + " ms; errors %d%n",
        TABLES,
        requests,
        RATE,
        took,
        latencies[requests / 2] / 1e6,
        latencies[requests * 99 / 100] / 1e6,
        latencies[requests * 999 / 1000] / 1e6,
        latencies[requests - 1] / 1e6,
        errors.get());
    pagesOf500(http, catalog);
  }

  /**
   * Every page of 500 tables of the 10,000, walked with nextPageToken, three times after one walk
   * of warm-up: each page's latency, and how many tables the walks saw (each exactly once).
   */
  private void pagesOf500(HttpClient http, String catalog) throws Exception {
    String list =
        "http://127.0.0.1:"
            + port
            + "/v1/catalogs/"
            + catalog
            + "/databases/db/materialized-tables?limit=500";
    List<Double> millis = new ArrayList<>();
    for (int walk = 0; walk <= 3; walk++) {
      Set<String> seen = new HashSet<>();
      String token = null;
      do {
        long sent = System.nanoTime();
        HttpResponse<String> page =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(list + (token == null ? "" : "&pageToken=" + token)))
                    .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - sent) / 1e6;
        assertThat(page.statusCode()).isEqualTo(200);
        JsonNode body = Json.read(page.body(), JsonNode.class);
        body.path("items").forEach(t -> seen.add(t.path("metadata").path("name").asString()));
        token = body.path("nextPageToken").asString(null);
        if (walk > 0) {
          millis.add(ms);
        }
      } while (token != null);
      assertThat(seen).hasSize(TABLES);
    }
    millis.sort(Double::compare);
    System.out.printf(
        Locale.ROOT,
        "BENCH get: %d pages of 500 tables out of %d (3 walks by nextPageToken after one of"
            + " warm-up): p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
        millis.size(),
        TABLES,
        millis.get(millis.size() / 2),
        millis.get(millis.size() * 9 / 10),
        millis.get(millis.size() - 1));
  }
}
