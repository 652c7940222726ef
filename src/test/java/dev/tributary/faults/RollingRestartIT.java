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
import java.time.OffsetDateTime;
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
 * sends) while its passes wait on a slow SQL Gateway (its own proxy, 3 s per request). The other
 * replica must take the tables it held at once: the stopping one gives its claims back as it shuts
 * down, rather than leaving them to run out their 15 s leases. Measured in the database: a trigger
 * the test adds logs every claim with its time, so a claim held for milliseconds is seen too.
 *
 * <p>A replica claims a row only for a pass thread that is idle, so the other replica here has more
 * pass threads than the tables it could be working on: what is measured is the handover, not how
 * long its own passes keep its threads busy (with four threads, all provisioning tables of their
 * own, it took the last table 4.2 s after the SIGTERM, once one of them had ended).
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
      env.put("TRIBUTARY_RECONCILER_LEASE", LEASE.toSeconds() + "s");
      Map<String, String> envA = new HashMap<>(env);
      envA.put("HOSTNAME", "replica-a");
      envA.put("TRIBUTARY_FLINK_SQL_GATEWAY_URL", "http://127.0.0.1:" + gateway.port());
      Map<String, String> envB = new HashMap<>(env);
      envB.put("HOSTNAME", "replica-b");
      envB.put("TRIBUTARY_RECONCILER_THREADS", "12");
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
        // Every gateway request of replica a now takes 3 s: its passes that provision the new
        // tables are mid-call most of the time, and hold their claims while they are.
        gateway.delay(Duration.ofSeconds(3));

        String url = env.get("SPRING_DATASOURCE_URL");
        try (Connection db =
            DriverManager.getConnection(
                url,
                env.get("SPRING_DATASOURCE_USERNAME"),
                env.get("SPRING_DATASOURCE_PASSWORD"))) {
          logClaims(db);
          List<UUID> heldByA =
              await()
                  .atMost(Duration.ofSeconds(60))
                  .pollInterval(Duration.ofMillis(50))
                  .until(() -> heldBy(db, "replica-a-"), held -> held.size() >= 2);
          OffsetDateTime sent = now(db);
          long terminated = System.nanoTime();
          a.terminate();
          double exited = (System.nanoTime() - terminated) / 1e9;
          assertThat(heldBy(db, "replica-a-")).as("claims left by the stopped replica").isEmpty();
          Map<UUID, Double> takenAfter =
              await()
                  .atMost(LEASE.plusSeconds(15))
                  .pollInterval(Duration.ofMillis(200))
                  .until(
                      () -> firstClaims(db, "replica-b-", sent),
                      t -> t.keySet().containsAll(heldByA));
          double slowest = heldByA.stream().mapToDouble(takenAfter::get).max().orElseThrow();
          System.out.printf(
              "FAULTS rolling restart: SIGTERM to a replica holding %d tables mid-pass (its gateway"
                  + " +3 s per request); it exited after %.1f s; the other replica claimed each of"
                  + " them %.2f s after the SIGTERM at the latest (lease %d s)%n",
              heldByA.size(), exited, slowest, LEASE.toSeconds());
          assertThat(slowest)
              .as("seconds from SIGTERM until the other replica took the last of its tables")
              .isLessThan(3.0);
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

  /** A log of every claim (a new claim token on a row), with the database's time. */
  private static void logClaims(Connection db) throws Exception {
    try (var st = db.createStatement()) {
      st.execute("CREATE TABLE IF NOT EXISTS test_claim_log (id uuid, owner text, at timestamptz)");
      st.execute(
          "CREATE OR REPLACE FUNCTION test_log_claim() RETURNS trigger AS $$ BEGIN INSERT INTO"
              + " test_claim_log VALUES (NEW.id, NEW.lease_owner, clock_timestamp()); RETURN NEW;"
              + " END $$ LANGUAGE plpgsql");
      st.execute("DROP TRIGGER IF EXISTS test_claims ON materialized_table");
      st.execute(
          "CREATE TRIGGER test_claims AFTER UPDATE OF claim_token ON materialized_table FOR EACH"
              + " ROW WHEN (NEW.claim_token IS NOT NULL AND NEW.claim_token IS DISTINCT FROM"
              + " OLD.claim_token) EXECUTE FUNCTION test_log_claim()");
    }
  }

  private static OffsetDateTime now(Connection db) throws Exception {
    try (var st = db.createStatement();
        ResultSet r = st.executeQuery("SELECT clock_timestamp()")) {
      r.next();
      return r.getObject(1, OffsetDateTime.class);
    }
  }

  /** Per table, seconds from {@code since} to its first claim by a replica of that name after. */
  private static Map<UUID, Double> firstClaims(
      Connection db, String ownerPrefix, OffsetDateTime since) throws Exception {
    try (PreparedStatement q =
        db.prepareStatement(
            "SELECT id, extract(epoch FROM min(at) - ?) FROM test_claim_log WHERE owner LIKE ? AND"
                + " at > ? GROUP BY id")) {
      q.setObject(1, since);
      q.setString(2, ownerPrefix + "%");
      q.setObject(3, since);
      Map<UUID, Double> first = new HashMap<>();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          first.put(rows.getObject(1, UUID.class), rows.getDouble(2));
        }
      }
      return first;
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
