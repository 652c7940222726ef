package dev.tributary.system;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Threads with a stack deep enough for Calcite and Flink's planner on the longest statement the
 * service takes. Both recurse once per operator of a chain ({@code a OR b OR c ...}): the longest a
 * statement may hold (5,000 {@code OR}s in its {@code Limits.MAX_TOKENS} tokens) overflows the 1
 * MiB of an ordinary thread, in the parser and again in the planner's validator, or not, as the JIT
 * has compiled the frames by then. A stack is reserved rather than committed until used.
 *
 * <p>Written here, not taken from a library: a thread factory with a stack size, and the unwrapping
 * of what the task threw.
 */
public final class DeepStacks {

  /** What a thread here may use of its stack. */
  static final long STACK_BYTES = 64L * 1024 * 1024;

  /** Threads for any work; idle ones end after 30 s. */
  private static final ExecutorService SHARED =
      new ThreadPoolExecutor(
          0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), factory("deep"));

  private DeepStacks() {}

  /** The caller was interrupted while work ran for it; the work was cancelled. */
  public static final class Interrupted extends RuntimeException {
    Interrupted(InterruptedException e) {
      super("Interrupted while waiting for work on a deep stack", e);
    }
  }

  /**
   * One deep-stack thread of its own, for work that must run where it began (Flink's planner keeps
   * state in thread locals); it ends when the executor is shut down.
   */
  public static ExecutorService ownThread(String name) {
    return Executors.newSingleThreadExecutor(factory(name));
  }

  /**
   * {@code work}'s answer, worked out on a shared deep-stack thread; see {@link
   * #call(ExecutorService, Callable)}.
   */
  public static <T> T call(Callable<T> work) {
    return call(SHARED, work);
  }

  /**
   * {@code work}'s answer, worked out on {@code threads} while this one waits. What it throws is
   * thrown here as it was: a {@link RuntimeException} or an {@link Error} (a {@link
   * StackOverflowError} even there) unchanged, a checked exception wrapped in an {@link
   * IllegalStateException}. An interrupted wait cancels the work and throws {@link Interrupted},
   * with this thread's interrupt flag set again.
   */
  public static <T> T call(ExecutorService threads, Callable<T> work) {
    Future<T> answer = threads.submit(work);
    try {
      return answer.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      throw new Interrupted(e);
    }
  }

  private static ThreadFactory factory(String name) {
    return task -> {
      Thread thread = new Thread(null, task, name, STACK_BYTES);
      thread.setDaemon(true);
      // The application's classes, whichever thread happened to start this one.
      thread.setContextClassLoader(DeepStacks.class.getClassLoader());
      return thread;
    };
  }
}
