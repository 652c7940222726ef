package dev.tributary.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.OperatingSystemMXBean;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.system.Json;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.StoredTables;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.File;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.JsonNode;

/**
 * GET of a table at 200 requests/s with 10,000 tables stored, as an open model: each request leaves
 * at its scheduled time whatever the earlier ones do, and its latency counts from that scheduled
 * time (a slow answer delays no later request, and no queueing is hidden), sent by threads started
 * before it on blocking connections (see {@link Load}). Errors are counted, not dropped. Not
 * counted: 1,000 GETs one after another, then 60 s at the same rate ({@code -Dbench.warmSeconds}),
 * each 10 s of it printed with its p99 and the JIT's CPU, so that what the window measures is seen
 * to be the service after its start-up, not assumed to be. The reconciler is off: only the API and
 * PostgreSQL are measured. Where the time goes: a filter before every other one (Spring Security's
 * included) and an interceptor just before the controller, both test-only beans, split each request
 * into the time before the server's first filter (connection, Tomcat's queue, the client), the
 * filters before the controller (authentication, tenancy), the controller (store reads, the JSON),
 * and the rest after it; the garbage collections and each thread's CPU while the GETs run. No JFR
 * recording: with one (the JDK's "profile" or "default" settings), the service fell behind the 200
 * requests a second here and the GETs timed out.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class GetBench {

  static final int TABLES = Integer.getInteger("bench.tables", 10_000);
  static final int RATE = 200;

  /** The open model's threads and connections: no cap on the requests in flight it meets here. */
  static final int SENDERS = 64;

  static final int SECONDS = 20;

  /** Seconds at the same rate before the measured ones, not counted. */
  static final int WARM_SECONDS = Integer.getInteger("bench.warmSeconds", 60);

  @LocalServerPort int port;
  @Autowired MaterializedTableService tables;

  @Test
  void getATableAt200RequestsPerSecondWithTenThousandStored() throws Exception {
    String catalog = "get_" + UUID.randomUUID().toString().substring(0, 8);
    StoredTables.create(tables, catalog, TABLES);

    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    String base =
        "http://127.0.0.1:"
            + port
            + "/v1/catalogs/"
            + catalog
            + "/databases/db/materialized-tables/t";
    Load load = new Load();
    try {
      measure(http, load, base, catalog);
    } finally {
      load.close();
    }
  }

  private void measure(HttpClient http, Load load, String base, String catalog) throws Exception {
    for (int i = 0; i < 1000; i++) { // warm-up, not counted
      http.send(
          HttpRequest.newBuilder(URI.create(base + (i % TABLES)))
              .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
              .build(),
          HttpResponse.BodyHandlers.discarding());
    }
    // Then seconds at the measured rate, not counted either, printed by slices of 10 s: measured
    // right after the thousand GETs above, the JIT's compilers took 10.4 s of the 2 cores' 40 s of
    // the window; alone, 20 s of warm-up still left them 6.8 s of it.
    for (int slice = 0; slice < WARM_SECONDS / 10; slice++) {
      Map<Long, Long> jitBefore = threadCpu(new HashMap<>());
      Map<Long, String> names = new HashMap<>();
      long[] warm = openModel(load, base, RATE * 10, new AtomicInteger());
      Arrays.sort(warm);
      System.out.printf(
          Locale.ROOT,
          "BENCH get: warm-up, seconds %d-%d at %d/s: p50 %.1f ms, p99 %.1f ms; the JIT's"
              + " compilers %.2f s of CPU%n",
          slice * 10,
          slice * 10 + 10,
          RATE,
          warm[warm.length / 2] / 1e6,
          warm[warm.length * 99 / 100] / 1e6,
          compilerCpu(jitBefore, threadCpu(names), names) / 1e9);
    }

    SPANS.clear();
    Pauses pauses = Pauses.listen();
    Map<Long, String> names = new HashMap<>();
    Map<Long, Long> cpuBefore = threadCpu(names);
    long processBefore = processCpu();
    int requests = RATE * SECONDS;
    AtomicInteger errors = new AtomicInteger();
    long start = System.nanoTime();
    long[] latencies = openModel(load, base, requests, errors);
    double took = (System.nanoTime() - start) / 1e9;
    pauses.close();
    Map<Long, Long> cpuAfter = threadCpu(names);
    long processAfter = processCpu();
    Arrays.sort(latencies);
    System.out.printf(
        "BENCH get: %d tables stored; %d GETs of random tables scheduled at %d/s over %.1f s;"
            + " latency from the scheduled send: p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f"
            + " ms; errors %d%n",
        TABLES,
        requests,
        RATE,
        took,
        latencies[requests / 2] / 1e6,
        latencies[requests * 99 / 100] / 1e6,
        latencies[requests * 999 / 1000] / 1e6,
        latencies[requests - 1] / 1e6,
        errors.get());
    List<long[]> spans = new ArrayList<>(SPANS);
    long median = latencies[requests / 2];
    long p99 = latencies[requests * 99 / 100];
    System.out.printf(
        Locale.ROOT,
        "BENCH get: where the time goes, over %d requests seen by the server: server p50 %.1f ms"
            + " p99 %.1f ms [filters before the controller p50 %.1f p99 %.1f, controller p50 %.1f"
            + " p99 %.1f, after it p50 %.1f p99 %.1f]; outside the server (client, connection,"
            + " Tomcat's queue) p50 %.1f ms, p99 %.1f ms (latency's percentile less the"
            + " server's)%n",
        spans.size(),
        percentile(spans, s -> s[3] - s[0], 50),
        percentile(spans, s -> s[3] - s[0], 99),
        percentile(spans, s -> s[1] - s[0], 50),
        percentile(spans, s -> s[1] - s[0], 99),
        percentile(spans, s -> s[2] - s[1], 50),
        percentile(spans, s -> s[2] - s[1], 99),
        percentile(spans, s -> s[3] - s[2], 50),
        percentile(spans, s -> s[3] - s[2], 99),
        median / 1e6 - percentile(spans, s -> s[3] - s[0], 50),
        p99 / 1e6 - percentile(spans, s -> s[3] - s[0], 99));
    System.out.println(
        "BENCH get: garbage collections in the JVM the service shares with Kafka, Flink's"
            + " MiniCluster and this client, while the GETs ran: "
            + pauses);
    long codeUsed = 0;
    long codeMax = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getName().startsWith("CodeHeap") || pool.getName().equals("Code Cache")) {
        codeUsed += pool.getUsage().getUsed();
        codeMax += Math.max(0, pool.getUsage().getMax());
      }
    }
    System.out.printf(
        Locale.ROOT,
        "BENCH get: the JIT's code cache: %d MB used of %d MB%n",
        codeUsed >> 20,
        codeMax >> 20);
    Map<String, Long> byGroup = new TreeMap<>();
    cpuAfter.forEach(
        (id, after) ->
            byGroup.merge(
                names.get(id).replaceAll("\\d+", "#"),
                after - cpuBefore.getOrDefault(id, 0L),
                Long::sum));
    StringJoiner top = new StringJoiner(", ");
    byGroup.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(8)
        .forEach(
            e -> top.add(String.format(Locale.ROOT, "%s %.2f s", e.getKey(), e.getValue() / 1e9)));
    System.out.printf(
        Locale.ROOT,
        "BENCH get: CPU while the GETs ran (%.1f s, %d cores): this JVM %.1f s; by thread, the"
            + " most: %s%n",
        took,
        Runtime.getRuntime().availableProcessors(),
        (processAfter - processBefore) / 1e9,
        top);
    pagesOf500(http, catalog);
  }

  /**
   * The garbage collections of this JVM while it listens, as the JVM reports them (each one's
   * duration, by collector): the service's tail latency here is mostly theirs, in a JVM shared with
   * the broker and the MiniCluster.
   */
  static final class Pauses implements AutoCloseable {
    private final List<Runnable> removals = new ArrayList<>();
    private final Map<String, List<Long>> byCollector = new ConcurrentSkipListMap<>();

    static Pauses listen() {
      Pauses pauses = new Pauses();
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        if (gc instanceof NotificationEmitter emitter) {
          NotificationListener listener =
              (notification, handback) -> {
                if (notification
                    .getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  var info =
                      GarbageCollectionNotificationInfo.from(
                          (CompositeData) notification.getUserData());
                  pauses
                      .byCollector
                      .computeIfAbsent(
                          info.getGcName(), k -> Collections.synchronizedList(new ArrayList<>()))
                      .add(info.getGcInfo().getDuration());
                }
              };
          emitter.addNotificationListener(listener, null, null);
          pauses.removals.add(
              () -> {
                try {
                  emitter.removeNotificationListener(listener);
                } catch (ListenerNotFoundException e) {
                  // gone already
                }
              });
        }
      }
      return pauses;
    }

    @Override
    public void close() {
      removals.forEach(Runnable::run);
    }

    /** Per collector: how many, their total and the longest, in milliseconds. */
    @Override
    public String toString() {
      if (byCollector.isEmpty()) {
        return "none";
      }
      StringJoiner out = new StringJoiner("; ");
      byCollector.forEach(
          (name, millis) -> {
            List<Long> copy = new ArrayList<>(millis);
            out.add(
                String.format(
                    Locale.ROOT,
                    "%s %d, %d ms in all, longest %d ms",
                    name,
                    copy.size(),
                    copy.stream().mapToLong(Long::longValue).sum(),
                    copy.stream().mapToLong(Long::longValue).max().orElse(0)));
          });
      return out.toString();
    }
  }

  /**
   * {@code requests} GETs of random tables, one every 1/{@link #RATE} s whatever the earlier ones
   * do; each one's latency from its scheduled send (ns). Failures and non-200 answers are counted
   * in {@code errors}.
   */
  private long[] openModel(Load load, String base, int requests, AtomicInteger errors)
      throws Exception {
    long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
    long[] latencies = new long[requests];
    CountDownLatch answered = new CountDownLatch(requests);
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    for (int n = 0; n < requests; n++) {
      long scheduled = start + n * interval;
      long wait = scheduled - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      int i = n;
      String uri = base + ThreadLocalRandom.current().nextInt(TABLES);
      load.senders.execute(
          () -> {
            try {
              if (load.get(uri) != 200) {
                errors.incrementAndGet();
              }
            } catch (IOException | RuntimeException e) {
              errors.incrementAndGet();
            } finally {
              latencies[i] = System.nanoTime() - scheduled;
              answered.countDown();
            }
          });
    }
    if (!answered.await(2, TimeUnit.MINUTES)) {
      throw new IllegalStateException(answered.getCount() + " GETs never came back");
    }
    return latencies;
  }

  /**
   * The open model's client: {@value #SENDERS} threads started before the first request, each
   * sending one blocking GET at a time over a pool of as many connections. The JDK's client, used
   * here before, completes each {@code sendAsync} on a thread of its own on two CPUs (a new thread
   * an answer), and that thread's start was inside every measured latency, on the cores the server
   * needs.
   */
  private static final class Load implements AutoCloseable {
    final ThreadPoolExecutor senders;
    final CloseableHttpClient http;

    Load() {
      senders =
          new ThreadPoolExecutor(
              SENDERS,
              SENDERS,
              0,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread t = new Thread(r, "bench-get-sender");
                t.setDaemon(true);
                return t;
              });
      senders.prestartAllCoreThreads();
      http =
          HttpClientBuilder.create()
              .setConnectionManager(
                  PoolingHttpClientConnectionManagerBuilder.create()
                      .setMaxConnPerRoute(SENDERS)
                      .setMaxConnTotal(SENDERS)
                      .build())
              .setDefaultRequestConfig(
                  RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(10)).build())
              .disableAutomaticRetries()
              .build();
    }

    int get(String uri) throws IOException {
      HttpGet get = new HttpGet(uri);
      get.setHeader("Authorization", "Bearer " + LocalStack.get().adminApiKey());
      return http.execute(
          get,
          response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
          });
    }

    @Override
    public void close() throws IOException {
      senders.shutdownNow();
      http.close();
    }
  }

  /** Each measured GET of a table as the server saw it: first filter, controller in, out, end. */
  static final ConcurrentLinkedQueue<long[]> SPANS = new ConcurrentLinkedQueue<>();

  /** The same for each page of the walks. */
  static final ConcurrentLinkedQueue<long[]> PAGE_SPANS = new ConcurrentLinkedQueue<>();

  private static final String SPAN = GetBench.class.getName() + ".span";

  /** The {@code p}th percentile (nearest rank) of one part of the spans, in milliseconds. */
  private static double percentile(List<long[]> spans, ToLongFunction<long[]> of, int p) {
    return Waterfall.percentile(
        spans.stream().map(s -> of.applyAsLong(s) / 1e6).toList(), p / 100.0);
  }

  /**
   * Each live thread's CPU time (ns), by id; their names go into {@code names}. On Linux from
   * {@code /proc/self/task}, which also lists the JVM's own threads (the JIT's compilers, the
   * garbage collector's workers) that the ThreadMXBean does not, under the first 15 characters of
   * their names; elsewhere from the ThreadMXBean.
   */
  /** The CPU (ns) the JIT's compiler threads took between two {@link #threadCpu} readings. */
  private static long compilerCpu(
      Map<Long, Long> before, Map<Long, Long> after, Map<Long, String> names) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      if (names.getOrDefault(e.getKey(), "").contains("CompilerThre")) {
        sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
      }
    }
    return sum;
  }

  private static Map<Long, Long> threadCpu(Map<Long, String> names) {
    Map<Long, Long> cpu = new HashMap<>();
    File[] tasks = new File("/proc/self/task").listFiles();
    if (tasks != null) {
      for (File task : tasks) {
        try {
          String stat = Files.readString(task.toPath().resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String[] fields = stat.substring(close + 2).split(" ");
          // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux)
          long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
          long id = Long.parseLong(task.getName());
          cpu.put(id, ticks * 10_000_000L);
          names.put(id, stat.substring(open + 1, close));
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
      return cpu;
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null) {
        long time = threads.getThreadCpuTime(info.getThreadId());
        if (time >= 0) {
          cpu.put(info.getThreadId(), time);
          names.put(info.getThreadId(), info.getThreadName());
        }
      }
    }
    return cpu;
  }

  /** This JVM's CPU time so far (ns). */
  private static long processCpu() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The test-only beans that time each GET of a table inside the server. */
  @TestConfiguration
  static class Spans implements WebMvcConfigurer {

    @Bean
    FilterRegistrationBean<OncePerRequestFilter> getBenchSpans() {
      OncePerRequestFilter first =
          new OncePerRequestFilter() {
            @Override
            protected boolean shouldNotFilter(HttpServletRequest request) {
              return !request.getMethod().equals("GET")
                  || !request.getRequestURI().contains("/materialized-tables");
            }

            @Override
            protected void doFilterInternal(
                HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
              long[] span = new long[4];
              span[0] = System.nanoTime();
              request.setAttribute(SPAN, span);
              try {
                chain.doFilter(request, response);
              } finally {
                span[3] = System.nanoTime();
                if (span[1] > 0 && span[2] > 0) {
                  (request.getRequestURI().endsWith("/materialized-tables") ? PAGE_SPANS : SPANS)
                      .add(span);
                }
              }
            }
          };
      FilterRegistrationBean<OncePerRequestFilter> bean = new FilterRegistrationBean<>(first);
      bean.setOrder(Ordered.HIGHEST_PRECEDENCE);
      return bean;
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
      registry.addInterceptor(
          new HandlerInterceptor() {
            @Override
            public boolean preHandle(
                HttpServletRequest request, HttpServletResponse response, Object handler) {
              if (request.getAttribute(SPAN) instanceof long[] span) {
                span[1] = System.nanoTime();
              }
              return true;
            }

            @Override
            public void afterCompletion(
                HttpServletRequest request,
                HttpServletResponse response,
                Object handler,
                Exception failure) {
              if (request.getAttribute(SPAN) instanceof long[] span) {
                span[2] = System.nanoTime();
              }
            }
          });
    }
  }

  /**
   * Every page of 500 tables of the 10,000, walked with nextPageToken, three times after one walk
   * of warm-up: each page's latency, and how many tables the walks saw (each exactly once).
   */
  private void pagesOf500(HttpClient http, String catalog) throws Exception {
    String list =
        "http://127.0.0.1:"
            + port
            + "/v1/catalogs/"
            + catalog
            + "/databases/db/materialized-tables?limit=500";
    List<Double> millis = new ArrayList<>();
    for (int walk = 0; walk <= 3; walk++) {
      Set<String> seen = new HashSet<>();
      String token = null;
      do {
        long sent = System.nanoTime();
        HttpResponse<String> page =
            http.send(
                HttpRequest.newBuilder(
                        URI.create(list + (token == null ? "" : "&pageToken=" + token)))
                    .header("Authorization", "Bearer " + LocalStack.get().adminApiKey())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - sent) / 1e6;
        assertThat(page.statusCode()).isEqualTo(200);
        JsonNode body = Json.read(page.body(), JsonNode.class);
        body.path("items").forEach(t -> seen.add(t.path("metadata").path("name").asString()));
        token = body.path("nextPageToken").asString(null);
        if (walk > 0) {
          millis.add(ms);
        }
      } while (token != null);
      assertThat(seen).hasSize(TABLES);
      if (walk == 0) {
        PAGE_SPANS.clear();
      }
    }
    List<long[]> spans = new ArrayList<>(PAGE_SPANS);
    millis.sort(Double::compare);
    System.out.printf(
        Locale.ROOT,
        "BENCH get: %d pages of 500 tables out of %d (3 walks by nextPageToken after one of"
            + " warm-up): p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
        millis.size(),
        TABLES,
        millis.get(millis.size() / 2),
        millis.get(millis.size() * 9 / 10),
        millis.get(millis.size() - 1));
    System.out.printf(
        Locale.ROOT,
        "BENCH get: where a page's time goes, over %d pages seen by the server: server p50 %.1f ms"
            + " [filters before the controller %.1f, controller (the store's query, the"
            + " resources and their JSON) %.1f, after it %.1f]%n",
        spans.size(),
        percentile(spans, s -> s[3] - s[0], 50),
        percentile(spans, s -> s[1] - s[0], 50),
        percentile(spans, s -> s[2] - s[1], 50),
        percentile(spans, s -> s[3] - s[2], 50));
  }
}
