package dev.tributary.system;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * Remote calls made beside other work, each asked while the caller does something else, and awaited
 * where their answer is needed: a pass's registry subjects while its topic is created, a consumer
 * group's offsets while a job's session opens, a query's changelog mode while its columns are
 * described.
 */
public final class Beside {

  private Beside() {}

  /** Daemon threads, as many as the calls under way: each waits on a remote answer. */
  private static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "beside");
            t.setDaemon(true);
            return t;
          });

  /**
   * Asks {@code call} on a thread of {@link #CALLS}, carried as {@link #carried} says: the remote
   * calls it makes count in the Server-Timing of the request on this thread, if any, and it runs as
   * this thread's caller.
   */
  public static <T> CompletableFuture<T> ask(Supplier<T> call) {
    return CompletableFuture.supplyAsync(carried(call), CALLS);
  }

  /**
   * {@code work} to be run on another thread as if on this one: what it times counts in this
   * thread's request ({@link ServerTiming#carried}), and it runs with this thread's security
   * context, so that a check of the caller's grants there sees the caller, not the service itself
   * (a thread without one is the service's own work, which may do anything).
   */
  public static <T> Supplier<T> carried(Supplier<T> work) {
    Supplier<T> timed = ServerTiming.carried(work);
    SecurityContext caller = SecurityContextHolder.getContext();
    return () -> {
      SecurityContext before = SecurityContextHolder.getContext();
      SecurityContextHolder.setContext(caller);
      try {
        return timed.get();
      } finally {
        if (before.getAuthentication() == null) {
          SecurityContextHolder.clearContext();
        } else {
          SecurityContextHolder.setContext(before);
        }
      }
    };
  }

  /** The answer, once asked; what the remote system answered otherwise is thrown as it was. */
  public static <T> T await(CompletableFuture<T> answer) {
    try {
      return answer.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }
}
