package dev.tributary.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TcpProxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A rolling restart with two service processes on one database: one gets SIGTERM (what Kubernetes
 * sends) while its passes wait on a slow SQL Gateway, as during a deployment under load. The other
 * replica must take the tables it held at once: the stopping one gives its claims back as it shuts
 * down, rather than leaving them to run out their 15 s leases. Measured from the database (which
 * replica holds each table's claim), not from the services' own words.
 */
@EnabledIfSystemProperty(named = "faults.full", matches = "true")
class RollingRestartIT {

  static final Duration LEASE = Duration.ofSeconds(15);

  @Test
  void shouldLetTheOtherReplicaTakeTheTablesOfAReplicaStoppedWithSigterm() throws Exception {
    LocalStack stack = LocalStack.get();
    String uid = UUID.randomUUID().toString().substring(0, 6);
    try (TcpProxy gateway = new TcpProxy(stack.sqlGatewayUrl().getPort())) {
      String database = "rolling_" + uid;
      Map<String, String> env = stack.environment(database);
      env.put("TRIBUTARY_FLINK_SQL_GATEWAY_URL", "http://127.0.0.1:" + gateway.port());
      env.put("TRIBUTARY_RECONCILER_LEASE", LEASE.toSeconds() + "s");
      Map<String, String> envA = new HashMap<>(env);
      envA.put("HOSTNAME", "replica-a");
      Map<String, String> envB = new HashMap<>(env);
      envB.put("HOSTNAME", "replica-b");
      Path logs = Path.of("target", "faults", "rolling-" + uid);
      try (ServiceProcess a = new ServiceProcess(envA, logs.resolve("a"));
          ServiceProcess b = new ServiceProcess(envB, logs.resolve("b"))) {
        CompletableFuture<Void> startA =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    a.start();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        b.start();
        startA.join();
        Api api = a.api();
        StringBuilder script = new StringBuilder();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          String name = "rolling_" + uid + "_" + i;
          names.add(name);
          script.append(
              "CREATE MATERIALIZED TABLE "
                  + name
                  + " FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id FROM orders;\n");
        }
        api.ok(script.toString());
        // Every gateway request now takes 3 s: the passes that provision the new tables are
        // mid-call most of the time, and hold their claims while they are.
        gateway.delay(Duration.ofSeconds(3));

        String url = env.get("SPRING_DATASOURCE_URL");
        try (Connection db =
            DriverManager.getConnection(
                url,
                env.get("SPRING_DATASOURCE_USERNAME"),
                env.get("SPRING_DATASOURCE_PASSWORD"))) {
          List<UUID> heldByA =
              await()
                  .atMost(Duration.ofSeconds(60))
                  .pollInterval(Duration.ofMillis(50))
                  .until(() -> heldBy(db, "replica-a-"), held -> !held.isEmpty());
          long terminated = System.nanoTime();
          a.terminate();
          double stopped = (System.nanoTime() - terminated) / 1e9;
          Map<UUID, Double> takenAfter = new HashMap<>();
          await()
              .atMost(LEASE.plusSeconds(30))
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> {
                    for (UUID id : heldBy(db, "replica-b-")) {
                      if (heldByA.contains(id)) {
                        takenAfter.putIfAbsent(id, (System.nanoTime() - terminated) / 1e9);
                      }
                    }
                    return takenAfter.keySet().containsAll(heldByA);
                  });
          double slowest = takenAfter.values().stream().mapToDouble(d -> d).max().orElse(0);
          System.out.printf(
              "FAULTS rolling restart: SIGTERM to a replica holding %d tables mid-pass (gateway +3"
                  + " s per request); it exited %.1f s later; the other replica claimed each of"
                  + " them %.1f s after the SIGTERM at the latest (lease %d s)%n",
              heldByA.size(), stopped, slowest, LEASE.toSeconds());
          assertThat(heldBy(db, "replica-a-")).as("claims left by the stopped replica").isEmpty();
          assertThat(slowest)
              .as("the other replica took the tables before the leases would have run out")
              .isLessThan(stopped + 5);
        }
        gateway.restore();
        Api other = b.api();
        await()
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> names.stream().allMatch(n -> other.phase(n).equals("RUNNING")));
        other.dropMaterializedTables("examples", "marketplace");
      }
    }
  }

  /** The tables whose claim a replica of that name holds now. */
  private static List<UUID> heldBy(Connection db, String ownerPrefix) throws Exception {
    try (PreparedStatement q =
        db.prepareStatement(
            "SELECT id FROM materialized_table WHERE lease_owner LIKE ? AND claim_token IS NOT"
                + " NULL")) {
      q.setString(1, ownerPrefix + "%");
      List<UUID> ids = new ArrayList<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          ids.add(rows.getObject(1, UUID.class));
        }
      }
      return ids;
    }
  }
}
