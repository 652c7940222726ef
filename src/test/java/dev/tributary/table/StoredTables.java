package dev.tributary.table;

import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Many stored tables for benchmarks: t0..t(n-1) in {@code catalog}.db, straight into the store. */
public final class StoredTables {

  private StoredTables() {}

  /**
   * Stores {@code n} tables on 4 threads; the first alone, since it creates catalog and database.
   */
  public static void create(MaterializedTableService tables, String catalog, int n)
      throws Exception {
    createOne(tables, catalog, 0);
    ExecutorService creators = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 1; i < n; i++) {
        int table = i;
        done.add(creators.submit(() -> createOne(tables, catalog, table)));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      creators.shutdown();
    }
  }

  /** Stores table t{@code n} in {@code catalog}.db. */
  public static void createOne(MaterializedTableService tables, String catalog, int n) {
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable)
            Parser.parse(
                "CREATE MATERIALIZED TABLE t"
                    + n
                    + " FRESHNESS = INTERVAL '10' SECOND AS SELECT order_id, price FROM orders");
    tables.create(new ObjectName(catalog, "db", "t" + n), create.definition(), false, false);
  }
}
