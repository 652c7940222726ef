package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/** The remote APIs' client against a real HTTP server on loopback. */
class HttpClientsTest {

  private HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();
  private final CountDownLatch released = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    server.createContext(
        "/ok",
        ex -> {
          requests.incrementAndGet();
          ex.getRequestBody().readAllBytes();
          byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/moved",
        ex -> {
          requests.incrementAndGet();
          ex.getResponseHeaders().add("Location", "/ok");
          ex.sendResponseHeaders(302, -1);
          ex.close();
        });
    server.createContext(
        "/busy",
        ex -> {
          requests.incrementAndGet();
          ex.getResponseHeaders().add("Retry-After", "0");
          ex.sendResponseHeaders(503, -1);
          ex.close();
        });
    server.createContext(
        "/hang",
        ex -> {
          requests.incrementAndGet();
          try {
            released.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          ex.close();
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stop() {
    released.countDown();
    server.stop(0);
  }

  private RestClient client(Duration timeout) {
    return HttpClients.restClient(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort()), timeout)
        .build();
  }

  @Test
  void shouldStartNoThreadPerRequest() {
    RestClient client = client(Duration.ofSeconds(5));
    client.get().uri("/ok").retrieve().body(String.class); // the pool's first connection
    long before = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
    for (int i = 0; i < 25; i++) {
      client.get().uri("/ok").retrieve().body(String.class);
      client.post().uri("/ok").body("{\"a\":1}").retrieve().body(String.class);
    }
    long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - before;
    // The server's own pool may start a few; the JDK client started one or two per request.
    assertThat(started).isLessThan(20);
    assertThat(requests.get()).isEqualTo(51);
  }

  @Test
  void shouldAnswerARedirectAsItIsWithoutFollowingIt() {
    var response = client(Duration.ofSeconds(5)).get().uri("/moved").retrieve().toBodilessEntity();
    assertThat(response.getStatusCode()).isEqualTo(HttpStatus.FOUND);
    assertThat(requests.get()).isEqualTo(1);
  }

  @Test
  void shouldNotSendAgainOnAStatus() {
    RestClient client = client(Duration.ofSeconds(5));
    var get = client.get().uri("/busy").exchange((req, res) -> res.getStatusCode().value(), true);
    assertThat(get).isEqualTo(503);
    assertThat(requests.get()).isEqualTo(1);
  }

  @Test
  void shouldGiveUpOnAServerThatNeverAnswersAfterTheTimeoutWithoutSendingAPostAgain() {
    RestClient client = client(Duration.ofMillis(500));
    long start = System.nanoTime();
    assertThatThrownBy(() -> client.post().uri("/hang").body("{}").retrieve().body(String.class))
        .isInstanceOf(ResourceAccessException.class);
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMillis).isBetween(400L, 5_000L);
    assertThat(requests.get()).isEqualTo(1);
  }
}
