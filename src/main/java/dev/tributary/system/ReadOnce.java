package dev.tributary.system;

import java.util.HashMap;
import java.util.Map;
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
   * value: equal keys are the same read); outside a scope, read every time.
   */
  @SuppressWarnings("unchecked")
  public static <T> T read(Object key, Supplier<T> read) {
    Map<Object, Object> scope = SCOPE.get();
    if (scope == null) {
      return read.get();
    }
    if (scope.containsKey(key)) {
      return (T) scope.get(key);
    }
    T value = read.get();
    scope.put(key, value);
    return value;
  }
}
