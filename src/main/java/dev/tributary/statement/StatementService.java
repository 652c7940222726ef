package dev.tributary.statement;

import dev.tributary.sql.Parser;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Secrets;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ServerTiming;
import dev.tributary.table.NameTaken;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs scripts of statements. The whole script is parsed and statically validated before anything
 * runs, and it runs in one transaction: if any statement fails, nothing of the script is kept.
 *
 * <p>No remote call (Flink, Kafka, the registry) happens inside that transaction: a script that
 * needs some first runs against the store collecting them ({@link RemoteReads}) and is rolled back,
 * they are answered with no transaction open, and the script runs again, in its transaction, with
 * the answers. A script that asks nothing runs once.
 */
@Service
public class StatementService {

  /** Runs of a script whose remote reads went stale before it gives up with 409. */
  private static final int ATTEMPTS = 3;

  private final StatementExecutor.Factory executors;
  private final TransactionTemplate transactions;
  private final EntityManager entities;

  /**
   * Scripts in their transaction at once. Each holds a pooled connection for its whole run, so
   * fewer of them than the pool has connections leaves room for requests that only read.
   */
  private final Semaphore running;

  private final Duration queueTimeout;
  private final int slots;

  /** How long a script held its slot, averaged over the last few (exponentially), in nanos. */
  private final AtomicLong meanHoldNanos = new AtomicLong();

  private final String defaultCatalog;
  private final String defaultDatabase;

  StatementService(
      StatementExecutor.Factory executors,
      PlatformTransactionManager transactionManager,
      EntityManager entities,
      @Value("${tributary.statements.max-concurrent:4}") int maxConcurrent,
      @Value("${tributary.statements.queue-timeout:30s}") Duration queueTimeout,
      @Value("${tributary.statements.default-catalog:default_catalog}") String defaultCatalog,
      @Value("${tributary.statements.default-database:default_database}") String defaultDatabase,
      MeterRegistry meters) {
    this.executors = executors;
    this.transactions = new TransactionTemplate(transactionManager);
    this.entities = entities;
    this.running = new Semaphore(maxConcurrent, true);
    this.slots = maxConcurrent;
    Gauge.builder(
            "tributary.statements.running", running, r -> maxConcurrent - r.availablePermits())
        .description(
            "Scripts in their transaction now (at most tributary.statements.max-concurrent)")
        .register(meters);
    this.queueTimeout = queueTimeout;
    this.defaultCatalog = defaultCatalog;
    this.defaultDatabase = defaultDatabase;
  }

  public List<StatementResult> execute(String script, String catalog, String database) {
    return run(script, catalog, database, false);
  }

  /**
   * Runs the script as {@link #execute} would, then rolls its transaction back: every statement is
   * planned and checked, nothing is stored, and the reconciler is not woken.
   */
  public List<StatementResult> dryRun(String script, String catalog, String database) {
    return run(script, catalog, database, true);
  }

  private List<StatementResult> run(
      String script, String catalog, String database, boolean dryRun) {
    List<Parser.Parsed> statements = ServerTiming.time("parse", () -> Parser.parseScript(script));
    // Nothing of a script runs if any of its statements asks for what cannot be carried out.
    statements.forEach(Parser.Parsed::requireSupported);
    List<StatementResult> results =
        inOneTransaction(reads -> runAll(statements, catalog, database, reads), dryRun);
    return dryRun ? results.stream().map(StatementResult::asDryRun).toList() : results;
  }

  /**
   * One CREATE statement of a resource (a PUT): applied as a declared object, so it is created when
   * absent, unchanged when it is there as given, and refused (409) when it is there otherwise, as
   * {@code apply} of a declared set does. With {@code dryRun} it is planned and nothing is kept.
   */
  public StatementResult apply(
      Class<? extends Statement> expected,
      String statement,
      String catalog,
      String database,
      boolean dryRun) {
    List<Parser.Parsed> parsed = Parser.parseScript(statement);
    if (parsed.size() != 1 || !expected.isInstance(parsed.get(0).statement())) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "spec.statement must be one "
              + expected.getSimpleName()
              + " statement, not "
              + parsed.stream().map(p -> p.statement().kind()).toList());
    }
    parsed.get(0).requireSupported();
    StatementResult result =
        runDeclared(List.of(parsed), catalog, database, dryRun, (results, reads) -> results.get(0));
    return dryRun ? result.asDryRun() : result;
  }

  /**
   * Runs a declared set of files (already parsed and checked) as one script: each file starts in
   * {@code catalog}.{@code database}, CREATE of an existing object means "make it so" (see {@link
   * StatementExecutor#declarative}), and {@code after} runs last in the same transaction (the drops
   * of a pruned plan). With {@code dryRun} nothing is kept.
   */
  <T> T runDeclared(
      List<List<Parser.Parsed>> files,
      String catalog,
      String database,
      boolean dryRun,
      BiFunction<List<StatementResult>, RemoteReads, T> after) {
    String inCatalog = orDefault(catalog, defaultCatalog);
    String inDatabase = orDefault(database, defaultDatabase);
    return inOneTransaction(
        reads -> {
          StatementExecutor executor = executors.declarative(inCatalog, inDatabase, reads);
          List<StatementResult> results = new ArrayList<>();
          for (List<Parser.Parsed> file : files) {
            executor.use(inCatalog, inDatabase);
            for (Parser.Parsed parsed : file) {
              try {
                results.add(executor.execute(parsed));
                statementDone();
              } catch (NameTaken e) {
                throw e; // the script runs again (inOneTransaction)
              } catch (ApiException e) {
                throw withPosition(e, parsed);
              } catch (SqlException e) {
                // Positioned in the statement's own file, which is its source.
                throw new ApiException(
                    e.code(),
                    e.getMessage(),
                    Map.of(
                        "statementIndex", parsed.index(), "line", e.line(), "column", e.column()));
              }
            }
          }
          return after.apply(results, reads);
        },
        dryRun);
  }

  /**
   * Runs {@code work} in one transaction, rolled back with {@code dryRun}. Work that asks remote
   * reads first runs to collect them and is rolled back; they are answered with no transaction open
   * (beside that run, from the moment each is asked), and the work runs again with the answers (see
   * {@link RemoteReads}).
   */
  private <T> T inOneTransaction(Function<RemoteReads, T> work, boolean dryRun) {
    for (int attempt = 1; ; attempt++) {
      RemoteReads reads = RemoteReads.collecting();
      T first;
      try {
        first =
            inTransaction(
                "run",
                tx -> {
                  T results = work.apply(reads);
                  if (dryRun || reads.asked()) {
                    tx.setRollbackOnly();
                  }
                  return results;
                });
      } catch (NameTaken e) {
        reads.abandon();
        if (attempt == ATTEMPTS) {
          throw e;
        }
        continue; // lost a race for a name: run again and see the winner's row
      } catch (ApiException e) {
        // An earlier statement's remote read may fail first; the script stops where it would.
        reads.answered();
        throw e;
      } catch (RuntimeException e) {
        reads.abandon();
        throw e;
      }
      if (!reads.asked()) {
        return first;
      }
      RemoteReads answers = ServerTiming.time("reads", reads::answered);
      try {
        return inTransaction(
            "rerun",
            tx -> {
              T results = work.apply(answers);
              if (dryRun) {
                tx.setRollbackOnly();
              }
              return results;
            });
      } catch (RemoteReads.Stale e) {
        if (attempt == ATTEMPTS) {
          throw RemoteReads.conflict();
        }
      } catch (NameTaken e) {
        // Another request created the same name between our read and our insert: the next run
        // sees its row, so CREATE OR ALTER of the same definition is UNCHANGED, not a 409.
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Runs {@code work} in a transaction once one of the script slots is free (else 429); the wait
   * and the run are the request's {@code wait} and {@code phase} in its Server-Timing.
   */
  private <T> T inTransaction(String phase, TransactionCallback<T> work) {
    long waiting = System.nanoTime();
    try {
      if (!running.tryAcquire(queueTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        // With every slot taken, one frees in about a script's mean hold over the slots.
        Duration retryAfter = Duration.ofNanos(meanHoldNanos.get() / Math.max(1, slots));
        throw new ApiException(
                ErrorCode.TOO_MANY_REQUESTS,
                "Too many scripts are running; this one waited "
                    + queueTimeout.toSeconds()
                    + " s for a turn. Retry later")
            .retryAfter(retryAfter);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(ErrorCode.TOO_MANY_REQUESTS, "Interrupted while waiting for a turn");
    }
    long start = System.nanoTime();
    ServerTiming.add("wait", start - waiting);
    try {
      return transactions.execute(work);
    } finally {
      running.release();
      long held = System.nanoTime() - start;
      ServerTiming.add(phase, held);
      meanHoldNanos.getAndUpdate(mean -> mean == 0 ? held : mean + (held - mean) / 8);
    }
  }

  private List<StatementResult> runAll(
      List<Parser.Parsed> statements, String catalog, String database, RemoteReads reads) {
    StatementExecutor executor =
        executors.create(
            orDefault(catalog, defaultCatalog), orDefault(database, defaultDatabase), reads);
    List<StatementResult> results = new ArrayList<>();
    for (Parser.Parsed parsed : statements) {
      try {
        results.add(executor.execute(parsed));
        statementDone();
      } catch (NameTaken e) {
        throw e; // the script runs again (inOneTransaction)
      } catch (ApiException e) {
        throw withPosition(e, parsed);
      }
    }
    return results;
  }

  /**
   * Ends one statement of a script: what it wrote is flushed (its writes were, as {@code
   * TableWriter} flushes each) and the persistence context emptied, so that the next statement's
   * queries and flushes dirty-check only the rows that statement loads. Kept, the rows of every
   * statement before were checked at each query's auto-flush: n² for a script of n statements,
   * about half of the 3.5 s run of the 200-file apply in {@code DeclaredSetBench} (its JFR). No
   * statement keeps an entity for the next: each finds the rows it acts on by name.
   */
  private void statementDone() {
    entities.flush();
    entities.clear();
  }

  /** Parses and validates only; returns each statement's kind and canonical text. */
  public List<StatementResult> validate(String script) {
    List<Parser.Parsed> statements = Parser.parseScript(script);
    statements.forEach(Parser.Parsed::requireSupported);
    return statements.stream()
        .map(
            p ->
                new StatementResult(
                    p.index(),
                    p.statement().kind(),
                    Secrets.redact(Printer.print(p.statement())),
                    null,
                    "VALID",
                    null,
                    null,
                    null))
        .toList();
  }

  /**
   * The error with its statement's index and, when Flink reported where in the AS query it found
   * the problem ({@code queryLine}, {@code queryColumn}), that place as the script's line and
   * column.
   */
  static ApiException withPosition(ApiException e, Parser.Parsed parsed) {
    ApiException indexed = withIndex(e, parsed.index());
    Map<String, Object> properties = indexed.properties();
    if (properties.containsKey("line")
        || !(properties.get("queryLine") instanceof Integer line)
        || !(properties.get("queryColumn") instanceof Integer column)) {
      return indexed;
    }
    return parsed
        .queryPosition(line, column)
        .map(
            at -> {
              Map<String, Object> positioned = new LinkedHashMap<>(properties);
              positioned.put("line", at[0]);
              positioned.put("column", at[1]);
              return new ApiException(indexed.code(), indexed.getMessage(), positioned);
            })
        .orElse(indexed);
  }

  static ApiException withIndex(ApiException e, int index) {
    if (e.properties().containsKey("statementIndex")) {
      return e;
    }
    Map<String, Object> properties = new LinkedHashMap<>(e.properties());
    properties.put("statementIndex", index);
    return new ApiException(e.code(), e.getMessage(), properties);
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }
}
