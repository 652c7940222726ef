package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.catalog.CatalogService;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * (a) CREATE to RUNNING through Tributary against the same work done by hand on the SQL Gateway,
 * side by side. Prints its figures; ./mvnw -Pbench verify. GET under load is {@link GetBench}.
 */
@TributaryIT
class ControlPlaneBench {

  static final int RUNS = 4;
  static final String QUERY =
      "SELECT order_id, customer_id, price FROM examples.marketplace.orders WHERE price > 50";

  @LocalServerPort int port;
  @Autowired FlinkSql sql;
  @Autowired FlinkJobs jobs;
  @Autowired Topics topics;
  @Autowired CatalogService catalogs;

  @Test
  void createToRunningAgainstRawSubmission() {
    Api api = new Api(port);
    List<Long> tributary = new ArrayList<>();
    List<Long> raw = new ArrayList<>();
    List<Long> createCalls = new ArrayList<>();
    for (int i = -1; i < RUNS; i++) { // round -1 warms both paths up and is not counted
      String name = "bench_" + UUID.randomUUID().toString().substring(0, 8);
      long start = System.nanoTime();
      api.sql(
          "CREATE MATERIALIZED TABLE " + name + " FRESHNESS = INTERVAL '5' SECOND AS " + QUERY,
          "examples",
          "marketplace");
      long createCall = (System.nanoTime() - start) / 1_000_000;
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () ->
                  "RUNNING"
                      .equals(
                          api.get(
                                  "/v1/catalogs/examples/databases/marketplace/materialized-tables/"
                                      + name)
                              .body()
                              .path("status")
                              .path("phase")
                              .asString()));
      long viaTributary = (System.nanoTime() - start) / 1_000_000;

      start = System.nanoTime();
      String jobId = rawSubmission("raw_" + name);
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () ->
                  jobs.overview().stream()
                      .anyMatch(
                          j -> j.id().equals(jobId) && j.state() == FlinkJobs.JobState.RUNNING));
      long viaGateway = (System.nanoTime() - start) / 1_000_000;
      if (i >= 0) {
        tributary.add(viaTributary);
        createCalls.add(createCall);
        raw.add(viaGateway);
      }
      api.sql("DROP MATERIALIZED TABLE " + name, "examples", "marketplace");
      jobs.cancel(jobId);
    }
    double t = tributary.stream().mapToLong(Long::longValue).average().orElse(0);
    double r = raw.stream().mapToLong(Long::longValue).average().orElse(0);
    System.out.printf(
        "BENCH create-to-running: tributary %s ms (mean %.0f; of which the CREATE call, validation with Flink included, %s ms),"
            + " raw gateway %s ms (mean %.0f), overhead %.1f%%%n",
        tributary, t, createCalls, raw, r, 100 * (t - r) / r);
  }

  /** Topic, session, source tables, sink table, INSERT: what a user would do without Tributary. */
  private String rawSubmission(String topic) {
    return new RawGateway(sql, topics, catalogs)
        .submit(topic, "order_id STRING, customer_id INT, price DOUBLE", QUERY, Map.of());
  }
}
