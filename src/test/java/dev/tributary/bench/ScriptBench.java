package dev.tributary.bench;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.system.ServerTiming;
import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * (c) One script of 500 {@code ALTER ... SET} statements over 10 stored tables, through the real
 * statement path (parse, the script's runs against PostgreSQL, the remote reads asked of the SQL
 * Gateway between them), in rounds; each round prints the call's time and its {@code
 * Server-Timing}. The reconciler is off: this measures the statement path alone, not the jobs the
 * changes restart. Rounds of the same size warm the JVM up first and are not counted. A JFR
 * recording of the counted rounds is kept as {@code target/bench/script.jfr}. ./mvnw -Pbench
 * verify; {@code -Dbench.statements}, {@code -Dbench.rounds}, {@code -Dbench.warmup}.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
@TestPropertySource(properties = "tributary.reconciler.enabled=false")
class ScriptBench {

  static final int STATEMENTS = Integer.getInteger("bench.statements", 500);
  static final int ROUNDS = Integer.getInteger("bench.rounds", 5);

  /** Rounds of the same size first, not counted: the JIT compiles the statement path in them. */
  static final int WARMUP = Integer.getInteger("bench.warmup", 2);

  static final int TABLES = 10;

  @LocalServerPort int port;

  @Test
  void fiveHundredAlterSetStatementsInOneScript() throws IOException, ParseException {
    Api api = new Api(port);
    // A catalog of its own, created by the first statement as StatementsIT's are.
    String catalog = "script_bench_" + UUID.randomUUID().toString().substring(0, 6);
    StringJoiner creates = new StringJoiner(";\n");
    for (int t = 0; t < TABLES; t++) {
      creates.add(
          "CREATE MATERIALIZED TABLE t"
              + t
              + " AS SELECT order_id, price FROM examples.marketplace.orders WHERE price > "
              + t);
    }
    require(api.sql(creates.toString(), catalog, "db"));

    Waterfall w = new Waterfall("script " + STATEMENTS + " ALTER SET");
    Profile profile = null;
    for (int round = -WARMUP; round < ROUNDS; round++) { // rounds below 0 are not counted
      StringJoiner script = new StringJoiner(";\n");
      for (int i = 0; i < STATEMENTS; i++) {
        script.add(
            String.format(
                Locale.ROOT,
                "ALTER MATERIALIZED TABLE t%d SET ('kafka.retention.time' = '%d h')",
                i % TABLES,
                2 + (round + WARMUP) * STATEMENTS + i));
      }
      if (round == (WARMUP > 0 ? -1 : 0)) {
        // Starting a recording slows the round it starts in: that is the last uncounted one.
        profile = Profile.start();
      }
      long start = System.nanoTime();
      Api.Answer answer = api.sql(script.toString(), catalog, "db");
      double millis = (System.nanoTime() - start) / 1e6;
      require(answer);
      if (round < 0) {
        continue;
      }
      w.round();
      w.serverTiming("script", answer.headers().getFirst(ServerTiming.HEADER));
      w.total(millis, round);
    }
    Path jfr = profile == null ? null : profile.keep("script");
    if (profile != null) {
      profile.close();
    }
    w.printSummary();
    System.out.printf(
        Locale.ROOT,
        "BENCH script: %d ALTER ... SET in one script, median %.0f ms (%.2f ms a statement);"
            + " JFR in %s%n",
        STATEMENTS,
        w.median(),
        w.median() / STATEMENTS,
        jfr);
  }

  private static void require(Api.Answer answer) {
    if (answer.status() != 200) {
      throw new IllegalStateException(answer.status() + " " + answer.text());
    }
  }
}
