package dev.tributary.reconcile;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Remote calls a pass makes beside its own work, each asked while the pass does something else (the
 * registry's schema ids and subjects while its topic is created or its session opened, a consumer
 * group's offsets while the session opens), and awaited where their answer is needed.
 */
final class Beside {

  private Beside() {}

  /** Daemon threads, as many as the calls under way: each waits on a remote answer. */
  static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "beside-pass");
            t.setDaemon(true);
            return t;
          });

  /** The answer, once asked; what the remote system answered otherwise is thrown as it was. */
  static <T> T await(CompletableFuture<T> answer) {
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
