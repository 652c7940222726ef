package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TopicReader;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * Exactly-once across a failure, not only across a clean suspend: Flink's TaskManager is lost while
 * a table's job writes (the job fails; its jobs run with no restart strategy of their own), the
 * reconciler restarts it from its newest checkpoint, and a read_committed reader of the table's
 * topic finds every source row exactly once.
 */
@TributaryIT
class TaskManagerLossIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", "marketplace");
  }

  JsonNode status(String name) {
    return api.get(TABLES + name).body().path("status");
  }

  @Test
  void shouldNeitherLoseNorRepeatARowWhenTheTaskManagerIsLostMidStream() throws Exception {
    Answer created =
        api.sql(
            "CREATE MATERIALIZED TABLE tm_loss FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id"
                + " FROM orders",
            "examples",
            "marketplace");
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(90)).until(() -> api.phase("tm_loss").equals("RUNNING"));
    String kafka = LocalStack.get().kafkaBootstrapServers();
    // Mid-stream: committed rows in the topic and a checkpoint the JobManager knows.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> TopicReader.values(kafka, "tm_loss", 5, Duration.ofSeconds(2), true).size() >= 5);
    String failedJob = status("tm_loss").path("job").path("id").asString();

    long lost = System.nanoTime();
    LocalStack.get().loseTaskManager();
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () ->
                api.phase("tm_loss").equals("RUNNING")
                    && !status("tm_loss").path("job").path("id").asString().equals(failedJob));
    double recovered = (System.nanoTime() - lost) / 1e9;

    JsonNode status = status("tm_loss");
    assertThat(status.path("job").path("restoredFrom").asString()).startsWith("state of ");
    assertThat(
            api.get(TABLES + "tm_loss/events")
                .body()
                .path("items")
                .valueStream()
                .map(e -> e.path("reason").asString()))
        .contains("JobFailed");
    Set<String> expected = OrderIds.source(kafka, Duration.ofSeconds(3));
    OrderIds.Count[] count = new OrderIds.Count[1];
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              count[0] = OrderIds.count(kafka, "tm_loss", expected);
              assertThat(count[0].missing()).as("source rows missing from the table").isZero();
              assertThat(count[0].duplicated()).as("rows written twice").isZero();
            });
    // The restart and the table's checkpoint age are on the metrics endpoint.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(api.get("/actuator/prometheus").text())
                    .contains(
                        "tributary_table_checkpoint_age_seconds{table=\"examples.marketplace.tm_loss\"}")
                    .containsPattern(
                        "tributary_table_events_total\\{reason=\"JobRestarted\",type=\"NORMAL\"} [1-9]"));
    System.out.printf(
        "TaskManager lost mid-stream: %d source rows, %d duplicated, %d missing, job running"
            + " again after %.1f s (%s)%n",
        count[0].sourceRows(),
        count[0].duplicated(),
        count[0].missing(),
        recovered,
        status.path("job").path("restoredFrom").asString());
  }
}
