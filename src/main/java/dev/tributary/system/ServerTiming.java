package dev.tributary.system;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * Where one request spent its time, sent back in a W3C {@code Server-Timing} header: the script's
 * parse, its wait for a slot, its runs against the store, the remote reads answered between them,
 * and the calls to each system (Flink's SQL Gateway and JobManager, Kafka, the registry) with their
 * count. Browsers' developer tools show it; the benchmarks print it as the service's side of a
 * waterfall. Metrics may overlap (remote calls happen inside {@code reads}), and only work on the
 * request's own thread is counted, or work handed to another with {@link #carried}.
 *
 * <p>Written by hand: Micrometer's timers aggregate over all requests and tracing is off by
 * default, while this is one request's breakdown at the cost of a thread-local map.
 */
public final class ServerTiming {

  /** The response header. */
  public static final String HEADER = "Server-Timing";

  private static final ThreadLocal<ServerTiming> CURRENT = new ThreadLocal<>();

  private final long started = System.nanoTime();
  private final Map<String, long[]> metrics = new LinkedHashMap<>();

  private ServerTiming() {}

  /** Starts timing the request on this thread. */
  public static ServerTiming begin() {
    ServerTiming timing = new ServerTiming();
    CURRENT.set(timing);
    return timing;
  }

  /** Stops timing on this thread. */
  public void end() {
    CURRENT.remove();
  }

  /**
   * Adds {@code nanos} to the metric {@code name} (an HTTP token) of the request on this thread.
   */
  public static void add(String name, long nanos) {
    ServerTiming timing = CURRENT.get();
    if (timing != null) {
      synchronized (timing) {
        long[] metric = timing.metrics.computeIfAbsent(name, k -> new long[2]);
        metric[0] += nanos;
        metric[1]++;
      }
    }
  }

  /**
   * {@code work} to be run on another thread, with what it times counted in the request on this
   * thread (its calls overlap the request's own).
   */
  public static <T> Supplier<T> carried(Supplier<T> work) {
    ServerTiming timing = CURRENT.get();
    if (timing == null) {
      return work;
    }
    return () -> {
      ServerTiming before = CURRENT.get();
      CURRENT.set(timing);
      try {
        return work.get();
      } finally {
        if (before == null) {
          CURRENT.remove();
        } else {
          CURRENT.set(before);
        }
      }
    };
  }

  /** Runs {@code work} and adds its duration to {@code name}. */
  public static <T> T time(String name, Supplier<T> work) {
    long start = System.nanoTime();
    try {
      return work.get();
    } finally {
      add(name, System.nanoTime() - start);
    }
  }

  /** The header's value: each metric in milliseconds, with its count when above one, then total. */
  public synchronized String header() {
    StringJoiner out = new StringJoiner(", ");
    metrics.forEach(
        (name, m) ->
            out.add(
                name + ";dur=" + millis(m[0]) + (m[1] > 1 ? ";desc=\"" + m[1] + " calls\"" : "")));
    out.add("total;dur=" + millis(System.nanoTime() - started));
    return out.toString();
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }
}
