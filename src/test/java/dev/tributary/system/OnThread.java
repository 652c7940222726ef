package dev.tributary.system;

import java.util.concurrent.Callable;

/** Tests' work on a thread of their own, with the stack size a test needs. */
public final class OnThread {

  private OnThread() {}

  /**
   * What {@code work} answered on a new thread with a stack of {@code stackBytes}, or what it threw
   * there (a {@link StackOverflowError} included), for the test to assert on.
   */
  public static Object answer(String name, long stackBytes, Callable<?> work)
      throws InterruptedException {
    Object[] answer = new Object[1];
    Thread thread =
        new Thread(
            null,
            () -> {
              try {
                answer[0] = work.call();
              } catch (Throwable e) {
                answer[0] = e;
              }
            },
            name,
            stackBytes);
    thread.start();
    thread.join();
    return answer[0];
  }
}
