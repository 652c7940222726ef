package dev.tributary.system;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

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
   * Asks {@code call} on a thread of {@link #CALLS}; the remote calls it makes count in the
   * Server-Timing of the request on this thread, if any.
   */
  public static <T> CompletableFuture<T> ask(Supplier<T> call) {
    return CompletableFuture.supplyAsync(ServerTiming.carried(call), CALLS);
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
