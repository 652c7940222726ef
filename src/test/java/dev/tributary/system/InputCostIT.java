package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What one request can cost: each statement kind and resource path, fed inputs from 1 KB to 500 KB
 * shaped to make a parser or a scan work hard (long names, long literals, long runs of word
 * characters and quotes, long expression lists). Every answer is a 2xx or a 4xx, the largest comes
 * within 2 s, and time grows no faster than the input (a square-time scan would take 64 times
 * longer for 8 times the input). Figures are printed for the record.
 */
@TributaryIT
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InputCostIT {

  /** Up to just under the script limit (512 Ki characters), so that the largest is read whole. */
  private static final int[] SIZES = {1024, 8 * 1024, 64 * 1024, 500 * 1024};

  @LocalServerPort int port;
  Api api;

  @BeforeAll
  void setUp() {
    api = new Api(port);
  }

  private static String repeat(String piece, int size) {
    return piece.repeat(Math.max(1, size / piece.length()));
  }

  /** Statement shapes, each filling about {@code n} characters. */
  private static Map<String, IntFunction<String>> statements() {
    Map<String, IntFunction<String>> s = new LinkedHashMap<>();
    s.put(
        "ALTER ... SET with a long name",
        n ->
            "ALTER MATERIALIZED TABLE rs_"
                + "a".repeat(n)
                + " SET ('kafka.retention.time' = '2 d')");
    s.put("SHOW CREATE of a long name", n -> "SHOW CREATE MATERIALIZED TABLE " + "b".repeat(n));
    s.put(
        "DROP IF EXISTS of a long name", n -> "DROP MATERIALIZED TABLE IF EXISTS " + "c".repeat(n));
    s.put("a long quoted name", n -> "DROP MATERIALIZED TABLE IF EXISTS `" + "c".repeat(n) + "`");
    s.put(
        "CREATE with a long comment",
        n -> "CREATE MATERIALIZED TABLE w COMMENT '" + "c".repeat(n) + "' AS SELECT * FROM orders");
    s.put(
        "CREATE with a long IN list",
        n ->
            "CREATE MATERIALIZED TABLE w AS SELECT * FROM orders WHERE order_id IN ("
                + repeat("1,", n)
                + "1)");
    s.put(
        "CREATE with a long OR chain",
        n ->
            "CREATE MATERIALIZED TABLE w AS SELECT * FROM orders WHERE "
                + repeat("order_id = 1 OR ", n)
                + "order_id = 2");
    s.put(
        "CREATE with deep brackets",
        n ->
            "CREATE MATERIALIZED TABLE w AS SELECT "
                + "(".repeat(n / 2)
                + "1"
                + ")".repeat(n / 2)
                + " AS x FROM orders");
    s.put(
        "CREATE TABLE with many columns",
        n -> "CREATE TABLE t (" + repeat("c INT, ", n) + "d INT) WITH ('connector' = 'kafka')");
    s.put(
        "option value of key=value runs",
        n ->
            "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'topic' = '"
                + repeat("a=", n)
                + "')");
    s.put(
        "option of doubled quotes",
        n ->
            "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'password' = '"
                + repeat("''", n)
                + "')");
    s.put(
        "many options",
        n -> "ALTER MATERIALIZED TABLE x SET (" + repeat("'k' = 'v', ", n) + "'k' = 'v')");
    s.put("a long string literal", n -> "SELECT '" + "s".repeat(n) + "' AS x FROM orders");
    s.put("a run of word characters", n -> "SHOW TABLES " + "w".repeat(n));
    s.put("a run of quotes", n -> "SHOW TABLES '" + "'".repeat(n));
    s.put("a line comment", n -> "-- " + "x".repeat(n) + "\nSHOW TABLES");
    s.put("an unterminated string", n -> "SELECT '" + "a".repeat(n));
    s.put("a script of many statements", n -> repeat("SHOW TABLES;\n", n));
    s.put(
        "SHOW ... LIKE a long pattern",
        n -> "SHOW MATERIALIZED TABLES LIKE '" + repeat("%a", n) + "b'");
    return s;
  }

  /** Fastest of two answers, in milliseconds; the answer must be 2xx or 4xx. */
  private long time(String what, Supplier<Answer> call) {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 2; i++) {
      long start = System.nanoTime();
      Answer answer = call.get();
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertThat(answer.status()).as(what + ": " + answer.text()).isBetween(200, 499);
      assertThat(answer.text().length()).as(what).isLessThan(600 * 1024);
      best = Math.min(best, ms);
    }
    return best;
  }

  private void assertLinear(String what, long[] ms) {
    System.out.printf(
        "input cost %-40s 1K %5d ms  8K %5d ms  64K %5d ms  500K %5d ms%n",
        what, ms[0], ms[1], ms[2], ms[3]);
    assertThat(ms[3]).as(what + ": the largest input").isLessThan(2_000);
    // 8 times the input: at most 8 times the time, twice over for noise, past a 100 ms floor.
    assertThat(ms[3]).as(what + ": 64K -> 500K").isLessThanOrEqualTo(16 * Math.max(ms[2], 100));
  }

  @Test
  void shouldValidateEveryStatementShapeInTimeLinearInItsSize() {
    assertEveryShapeLinear("validate", "/v1/statements/validate", false);
  }

  @Test
  void shouldRunEveryStatementShapeInTimeLinearInItsSize() {
    assertEveryShapeLinear("dry run", "/v1/statements", true);
  }

  private void assertEveryShapeLinear(String label, String path, boolean dryRun) {
    List<String> failures = new ArrayList<>();
    statements()
        .forEach(
            (what, statement) -> {
              long[] ms = new long[SIZES.length];
              for (int i = 0; i < SIZES.length; i++) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("statement", statement.apply(SIZES[i]));
                body.put("catalog", "examples");
                body.put("database", dryRun ? "input_cost" : "marketplace");
                if (dryRun) {
                  body.put("dryRun", true);
                }
                ms[i] = time(what, () -> api.post(path, body));
              }
              try {
                assertLinear(label + " " + what, ms);
              } catch (AssertionError e) {
                failures.add(e.getMessage());
              }
            });
    assertThat(failures).isEmpty();
  }

  @Test
  void shouldAnswerResourcePathsInTimeLinearInTheirInput() {
    String db = "/v1/catalogs/examples/databases/marketplace";
    long[] put = new long[SIZES.length];
    long[] plan = new long[SIZES.length];
    long[] key = new long[SIZES.length];
    long[] get = new long[SIZES.length];
    for (int i = 0; i < SIZES.length; i++) {
      int n = SIZES[i];
      Map<String, Object> spec = new LinkedHashMap<>();
      spec.put("query", "SELECT * FROM orders WHERE " + repeat("order_id = 1 OR ", n) + "true");
      Map<String, Object> resource = Map.of("spec", spec);
      put[i] = time("PUT", () -> api.put(db + "/materialized-tables/input_cost", null, resource));
      Map<String, Object> files =
          Map.of("files", List.of(Map.of("name", "a.sql", "sql", repeat("SHOW TABLES; ", n))));
      plan[i] = time("plan", () -> api.post(db + "/plans", files));
      key[i] =
          time(
              "api key",
              () ->
                  api.post(
                      "/v1/api-keys",
                      Map.of("name", "k" + "x".repeat(n), "grants", List.of("viewer:*"))));
      // Paths are bounded by the server's header limit (8 KB): beyond it, a 4xx from Tomcat.
      String name = "n".repeat(Math.min(n, 6_000));
      get[i] = time("GET", () -> api.get(db + "/materialized-tables/" + name));
    }
    assertLinear("PUT a long query", put);
    assertLinear("plan a long file", plan);
    assertLinear("API key with a long name", key);
    assertLinear("GET a long name", get);
  }
}
