package dev.tributary.local;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A server of the local stack as a JVM of its own (a Flink JobManager, TaskManager, SQL Gateway,
 * the S3 server, ZooKeeper), so that a fault test can SIGKILL exactly that process: {@link #pid()}
 * is the JVM's own, not a wrapper's. A shell watchdog beside it SIGKILLs it when this JVM dies,
 * even by SIGKILL, so no server outlives the test run. It can be started again on the same
 * settings.
 */
public final class ChildJvm implements AutoCloseable {

  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path dir;
  private Process process;

  ChildJvm(
      String name,
      Path java,
      List<String> jvmOptions,
      String classPath,
      String mainClass,
      List<String> arguments,
      Map<String, String> environment,
      Path dir) {
    this.name = name;
    this.environment = environment;
    this.dir = dir;
    List<String> c = new ArrayList<>();
    c.add(java.toString());
    c.addAll(jvmOptions);
    c.addAll(List.of("-cp", classPath, mainClass));
    c.addAll(arguments);
    this.command = List.copyOf(c);
  }

  /** This JVM's module flags ({@code --add-opens}, {@code --add-exports}): Flink needs them. */
  static List<String> moduleFlags() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens") || a.startsWith("--add-exports"))
        .toList();
  }

  static Path thisJava() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  public String name() {
    return name;
  }

  /** Starts it (again) and waits until {@code ready} holds; its output goes to {@link #log()}. */
  synchronized void start(BooleanSupplier ready, Duration timeout)
      throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is running already");
    }
    Files.createDirectories(dir);
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(environment);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
    process = builder.start();
    watch(process.pid());
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!ready.getAsBoolean()) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited while starting; its log is " + log());
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new IllegalStateException(
            name + " was not ready within " + timeout + "; its log is " + log());
      }
      Thread.sleep(200);
    }
  }

  private static void watch(long child) throws IOException {
    whenThisJvmDies("kill -0 " + child + " 2>/dev/null", "kill -9 " + child + " 2>/dev/null");
  }

  /**
   * Runs {@code action} in a shell once this JVM is gone (even by SIGKILL), or earlier when {@code
   * whileTrue} stops holding: the watchdog that keeps a server of the stack from outliving it.
   */
  static void whenThisJvmDies(String whileTrue, String action) throws IOException {
    String script =
        "while kill -0 "
            + ProcessHandle.current().pid()
            + " 2>/dev/null && "
            + whileTrue
            + "; do sleep 1; done; "
            + action
            + " || true";
    new ProcessBuilder("sh", "-c", script)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  Path log() {
    return dir.resolve(name + ".log");
  }

  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: what a lost machine or an OOM kill does; no shutdown hook runs. */
  public synchronized void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** SIGSTOP or SIGCONT: a hung process, that holds its sockets open and answers nothing. */
  public synchronized void signal(String signal) throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-" + signal, String.valueOf(pid())).start().waitFor();
  }

  @Override
  public synchronized void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
