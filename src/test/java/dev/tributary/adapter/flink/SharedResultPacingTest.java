package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tributary.port.FlinkSql;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.RestClient;

/**
 * The count of job statements waiting on one gateway, which sets their shared pause (see {@link
 * GatewayFlinkSql#nextPause}), against an HTTP server that answers as the SQL Gateway does: a
 * statement's operation, then NOT_READY until the test lets it end.
 */
class SharedResultPacingTest {

  private static final Pattern RESULT = Pattern.compile("/operations/([^/]+)/result/0");

  private HttpServer server;
  private GatewayFlinkSql sql;

  /** Operations the test lets end. */
  private final Map<String, Boolean> ended = new ConcurrentHashMap<>();

  /**
   * Each fetch of a result not ready: the operation, and how many statements the client counted.
   */
  private final List<String> asks = new CopyOnWriteArrayList<>();

  @BeforeEach
  void gateway() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext(
        "/v3/sessions/s/statements",
        exchange -> {
          String body =
              new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          // The operation is named by the statement's first and last words.
          Matcher m =
              Pattern.compile("\"statement\"\\s*:\\s*\"(\\w+)[^\"]*?(\\w+)\"").matcher(body);
          String op = m.find() ? m.group(1) + "-" + m.group(2) : "unknown";
          answer(exchange, "{\"operationHandle\":\"" + op + "\"}");
        });
    server.createContext(
        "/v3/sessions/s/operations",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (path.endsWith("/close")) {
            answer(exchange, "{\"status\":\"CLOSED\"}");
            return;
          }
          Matcher m = RESULT.matcher(path);
          String op = m.find() ? m.group(1) : "unknown";
          if (ended.getOrDefault(op, false)) {
            answer(exchange, "{\"resultType\":\"EOS\",\"jobID\":\"job-" + op + "\"}");
            return;
          }
          asks.add(op + ":" + sql.waiting());
          answer(
              exchange,
              "{\"resultType\":\"NOT_READY\",\"nextResultUri\":\"/v3/sessions/s/operations/"
                  + op
                  + "/result/0?rowFormat=JSON\"}");
        });
    server.start();
    sql =
        new GatewayFlinkSql(
            RestClient.create("http://127.0.0.1:" + server.getAddress().getPort()),
            Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void answer(HttpExchange exchange, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }

  @Test
  void shouldCountTheJobStatementsWaitingAtOnceAndNoneOnceTheyAreAnswered() throws Exception {
    FlinkSql.Session session = new FlinkSql.Session("s");
    CompletableFuture<FlinkSql.StatementResult> first =
        CompletableFuture.supplyAsync(
            () -> sql.execute(session, "INSERT INTO sink SELECT * FROM a"));
    awaitAsked("INSERT-a:1");
    CompletableFuture<FlinkSql.StatementResult> second =
        CompletableFuture.supplyAsync(
            () -> sql.execute(session, "INSERT INTO sink SELECT * FROM b"));
    // Both wait now: each of their asks counts two.
    awaitAsked("INSERT-b:2");
    awaitAsked("INSERT-a:2");
    ended.put("INSERT-a", true);
    assertThat(first.get().jobId()).contains("job-INSERT-a");
    int asked = asks.size();
    awaitAsked("INSERT-b:1", asked); // a's answer leaves b alone
    ended.put("INSERT-b", true);
    assertThat(second.get().jobId()).contains("job-INSERT-b");
    assertThat(sql.waiting()).isZero();
  }

  @Test
  void shouldNotCountAStatementThatOnlyPlans() throws Exception {
    FlinkSql.Session session = new FlinkSql.Session("s");
    CompletableFuture<FlinkSql.StatementResult> plan =
        CompletableFuture.supplyAsync(() -> sql.execute(session, "EXPLAIN SELECT * FROM t"));
    awaitAsked("EXPLAIN-t:0");
    ended.put("EXPLAIN-t", true);
    plan.get();
    assertThat(sql.waiting()).isZero();
  }

  private void awaitAsked(String ask) throws InterruptedException {
    awaitAsked(ask, 0);
  }

  /** Until an ask after the first {@code from} is {@code ask} (operation:count), 10 s at most. */
  private void awaitAsked(String ask, int from) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!asks.subList(Math.min(from, asks.size()), asks.size()).contains(ask)) {
      assertThat(System.nanoTime()).as("asked " + ask + " among " + asks).isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
