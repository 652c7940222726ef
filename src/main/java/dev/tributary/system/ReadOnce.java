package dev.tributary.system;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Remote reads made once within a scope: while one script's questions are answered, the second plan
 * that asks how many offsets topic T holds gets the answer the first one got, instead of asking
 * Kafka again (a script of 500 changes to 10 tables read the same 10 topics 500 times). Outside a
 * scope every read goes out. A read that fails is not kept; the next one tries again. Written by
 * hand: the scope is one thread's work for one request, which a cache library's time- or
 * size-bounded caches do not model.
 */
public final class ReadOnce {

  private static final ThreadLocal<Map<Object, Object>> SCOPE = new ThreadLocal<>();

  private ReadOnce() {}

  /**
   * A scope that work on several threads shares, one thread after another (the answers of one
   * script's remote reads, each on a thread beside its run); its reads are not synchronized.
   */
  public static final class Scope {
    private final Map<Object, Object> reads = new HashMap<>();

    private Scope() {}
  }

  /** A new scope, to run work in with {@link #within(Scope, Supplier)}. */
  public static Scope scope() {
    return new Scope();
  }

  /**
   * Runs {@code work} in {@code scope} on this thread. Work of one scope on several threads must
   * run one after another (each handing over to the next, as chained futures do).
   */
  public static <T> T within(Scope scope, Supplier<T> work) {
    Map<Object, Object> before = SCOPE.get();
    SCOPE.set(scope.reads);
    try {
      return work.get();
    } finally {
      if (before == null) {
        SCOPE.remove();
      } else {
        SCOPE.set(before);
      }
    }
  }

  /** Runs {@code work} with a fresh scope on this thread (nested scopes share the outer one). */
  public static <T> T within(Supplier<T> work) {
    if (SCOPE.get() != null) {
      return work.get();
    }
    SCOPE.set(new HashMap<>());
    try {
      return work.get();
    } finally {
      SCOPE.remove();
    }
  }

  /**
   * The value {@code read} gives for {@code key}, read at most once per scope ({@code key} is a
   * value: equal keys are the same read); outside a scope, read every time. A read started {@link
   * #ahead} is awaited.
   */
  @SuppressWarnings("unchecked")
  public static <T> T read(Object key, Supplier<T> read) {
    Map<Object, Object> scope = SCOPE.get();
    if (scope == null) {
      return read.get();
    }
    if (scope.containsKey(key)) {
      Object kept = scope.get(key);
      if (!(kept instanceof Ahead ahead)) {
        return (T) kept;
      }
      try {
        T value = (T) Beside.await(ahead.answer());
        scope.put(key, value);
        return value;
      } catch (RuntimeException e) {
        scope.remove(key); // not kept: the next read tries again
        throw e;
      }
    }
    T value = read.get();
    scope.put(key, value);
    return value;
  }

  /**
   * Starts {@code read} for {@code key} on a thread beside this one ({@link Beside#ask}), for a
   * later {@link #read} of the same key in this scope to await instead of asking: a plan starts the
   * reads it will make whatever Flink's planner answers while the planner works. Outside a scope,
   * or when the key was read or started already, nothing is started. A read started and never
   * awaited (the plan refused earlier) is a remote call made for nothing, nothing worse.
   */
  public static void ahead(Object key, Supplier<?> read) {
    Map<Object, Object> scope = SCOPE.get();
    if (scope != null && !scope.containsKey(key)) {
      scope.put(key, new Ahead(Beside.ask(read)));
    }
  }

  /** A read under way on another thread; only its future crosses threads, not the scope's map. */
  private record Ahead(CompletableFuture<?> answer) {}
}
