package dev.tributary.bench;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.system.ServerTiming;
import java.io.IOException;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * A CREATE against the size of the store: the same statement (each round's query its own), first
 * with the local stack's few source tables, then with 10,000 more in another database. What a
 * CREATE asks of the store about other tables (which source tables read the new table's topic) is
 * an index read, so the two medians should differ by no more than the noise; before `V19` each such
 * question read every source table of every catalog. The 10,000 are copies of {@code
 * examples.marketplace.orders}, each with a topic of its own, written straight into the store:
 * registering them through the API would validate each with Flink, minutes that measure nothing
 * here. The store only grows, so the two phases cannot alternate; each follows 3 uncounted rounds,
 * and no query repeats (Flink's answers are kept by query). The reconciler is off: the tables stay
 * rows.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
@TestPropertySource(properties = "tributary.reconciler.enabled=false")
class StoreSizeBench {

  static final int SOURCES = Integer.getInteger("bench.sources", 10_000);
  static final int ROUNDS = Integer.getInteger("bench.rounds", 10);
  static final int WARMUP = 3;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  @Test
  void aCreateCostsTheSameWithTenThousandMoreSourceTablesStored() throws IOException {
    Api api = new Api(port);
    String prefix = "size_" + UUID.randomUUID().toString().substring(0, 6);
    int stored = count();
    Waterfall few = creates(api, prefix + "_few", 0, stored + " source tables");

    Long database =
        jdbc.queryForObject(
            "INSERT INTO catalog_database (catalog_id, name) SELECT catalog_id, ? FROM"
                + " catalog_database WHERE name = 'marketplace' RETURNING id",
            Long.class,
            prefix);
    long start = System.nanoTime();
    jdbc.update(
        "INSERT INTO source_table (database_id, name, ddl, table_schema, options, comment)"
            + " SELECT ?, s.name || '_' || g, s.ddl, s.table_schema,"
            + " jsonb_set(s.options, '{topic}', to_jsonb(? || '_' || g)), s.comment"
            + " FROM source_table s JOIN catalog_database d ON d.id = s.database_id,"
            + " generate_series(1, ?) g WHERE d.name = 'marketplace' AND s.name = 'orders'",
        database,
        prefix,
        SOURCES);
    jdbc.execute("ANALYZE source_table");
    System.out.printf(
        Locale.ROOT,
        "BENCH store-size: %d source tables written into the store in %.0f ms%n",
        count() - stored,
        (System.nanoTime() - start) / 1e6);
    Waterfall many = creates(api, prefix + "_many", 1000, count() + " source tables");

    few.printSummary();
    many.printSummary();
    System.out.printf(
        Locale.ROOT,
        "BENCH store-size: a CREATE with %d source tables stored, median %.0f ms (p90 %.0f);"
            + " with %d, median %.0f ms (p90 %.0f): %+.1f%% of the medians%n",
        stored,
        few.median(),
        few.p90(),
        count(),
        many.median(),
        many.p90(),
        100 * (many.median() / few.median() - 1));
  }

  private Waterfall creates(Api api, String name, int bound, String label) throws IOException {
    Waterfall w = new Waterfall("store-size CREATE with " + label);
    for (int round = -WARMUP; round < ROUNDS; round++) { // rounds below 0 are not counted
      String statement =
          "CREATE MATERIALIZED TABLE "
              + name
              + "_"
              + (round + WARMUP)
              + " AS SELECT order_id, customer_id, price FROM examples.marketplace.orders"
              + " WHERE price > "
              + (bound + round + WARMUP);
      long start = System.nanoTime();
      Api.Answer answer = api.sql(statement, "examples", "marketplace");
      double millis = (System.nanoTime() - start) / 1e6;
      if (answer.status() != 200) {
        throw new IllegalStateException(answer.status() + " " + answer.text());
      }
      if (round >= 0) {
        w.round();
        w.serverTiming("create", answer.headers().getFirst(ServerTiming.HEADER));
        w.total(millis, round);
      }
    }
    return w;
  }

  private int count() {
    Integer n = jdbc.queryForObject("SELECT count(*) FROM source_table", Integer.class);
    return n == null ? 0 : n;
  }
}
