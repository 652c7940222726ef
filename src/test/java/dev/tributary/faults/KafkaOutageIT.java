package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.local.LocalStack;
import dev.tributary.local.OrderIds;
import dev.tributary.local.TcpProxy;
import dev.tributary.local.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Kafka goes away from the service and its jobs (a proxy in front of the broker is cut; the rest of
 * the stack keeps it): the API keeps answering, a CREATE is accepted and waits, the running table's
 * job keeps or regains its place, and once Kafka is back both tables run and the running one holds
 * every source row exactly once.
 */
class KafkaOutageIT {

  static final String TABLES = "/v1/catalogs/examples/databases/marketplace/materialized-tables/";

  @Test
  void shouldWaitOutAKafkaOutageAndLoseNoRow() throws Exception {
    LocalStack stack = LocalStack.get();
    TcpProxy kafka = stack.kafkaProxy();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    Map<String, String> env = stack.environment("kafka_down_" + uid);
    env.put("TRIBUTARY_KAFKA_BOOTSTRAP_SERVERS", stack.proxiedKafkaBootstrapServers());
    env.put("TRIBUTARY_KAFKA_REQUEST_TIMEOUT", "3s");
    env.put("TRIBUTARY_RECONCILER_RESYNC", "3s");
    try (ServiceProcess service =
        new ServiceProcess(env, Path.of("target", "faults", "kafka-down-" + uid))) {
      service.start();
      Api api = service.api();
      String before = "kd_" + uid;
      String during = "kd_" + uid + "_new";
      api.ok(
          "CREATE MATERIALIZED TABLE "
              + before
              + " FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id FROM orders");
      await().atMost(Duration.ofSeconds(90)).until(() -> api.phase(before).equals("RUNNING"));
      String direct = stack.kafkaBootstrapServers();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> TopicReader.values(direct, before, 3, Duration.ofSeconds(2), true).size() >= 3);

      kafka.cut();
      long slowest;
      try {
        api.ok(
            "CREATE MATERIALIZED TABLE "
                + during
                + " FRESHNESS = INTERVAL '1' SECOND AS SELECT order_id, price FROM orders");
        slowest = 0;
        long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < end) {
          long start = System.nanoTime();
          assertThat(api.get(TABLES + before).status()).isEqualTo(200);
          slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
        }
        JsonNode waiting = api.get(TABLES + during).body().path("status");
        assertThat(waiting.path("phase").asString()).isNotEqualTo("RUNNING");
      } finally {
        kafka.restore();
      }

      await()
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> api.phase(before).equals("RUNNING") && api.phase(during).equals("RUNNING"));
      OrderIds.Count count = OrderIds.awaitExactlyOnce(direct, before);
      System.out.printf(
          "Kafka cut for 15 s under the service and its jobs: a CREATE accepted and provisioned"
              + " after; slowest GET meanwhile %d ms; %d source rows, %d duplicated, %d missing%n",
          slowest, count.sourceRows(), count.duplicated(), count.missing());
      assertThat(slowest).isLessThan(2000);
      api.dropMaterializedTables("examples", "marketplace");
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  api.get(TABLES + before).status() == 404
                      && api.get(TABLES + during).status() == 404);
    }
  }
}
