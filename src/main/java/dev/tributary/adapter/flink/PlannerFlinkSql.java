package dev.tributary.adapter.flink;

import dev.tributary.port.FlinkSql;
import dev.tributary.system.DeepStacks;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.StatementSetOperation;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink's own planner in this process, as the {@link FlinkSql} that validation asks: a session is a
 * {@link TableEnvironment} made with the session's properties, and a statement is parsed and run by
 * it. It plans and describes; it runs no job: an INSERT, a SELECT, a statement set or a compiled
 * plan is refused. Its connectors and formats are the ones on the service's class path (Kafka, the
 * JSON formats, this project's {@code dev.tributary.flinkformat}).
 *
 * <p>Why: asked of a SQL Gateway, a validation is a session's round trips and an operation the
 * gateway runs in a fresh table environment of its own, polled for its result: 100-190 ms for a
 * query the planner here describes and explains in 20-30 ms. The gateway stays the authority: the
 * planner is asked only when the gateway runs the same Flink version ({@link #version}), and what
 * it refuses is asked of the gateway again (see {@code QueryPlanner}).
 */
public final class PlannerFlinkSql implements FlinkSql {

  /**
   * A session: its table environment, and the thread it was made on, which runs every statement of
   * it. Flink's planner keeps per-thread state: Calcite's metadata handlers are in a thread local
   * set where the environment is made, and an EXPLAIN on another thread, which had never made one,
   * failed with {@code metadataHandlerProvider}. The thread has a deep stack ({@link DeepStacks}):
   * the validator recurses once per operator of a chain, and overflowed the 1 MiB of a thread
   * answering a script's questions on a chain of 4,000 {@code OR}s, a statement the service takes.
   */
  private record Env(TableEnvironmentInternal tables, ExecutorService thread) {}

  private final Map<String, Env> sessions = new ConcurrentHashMap<>();

  @Override
  public Session openSession(String name, Map<String, String> properties) {
    EnvironmentSettings settings =
        EnvironmentSettings.newInstance()
            .withConfiguration(Configuration.fromMap(properties))
            .withClassLoader(PlannerFlinkSql.class.getClassLoader())
            .build();
    Session session = new Session("planner-" + UUID.randomUUID());
    ExecutorService thread = DeepStacks.ownThread("planner-session");
    try {
      TableEnvironment tables = DeepStacks.call(thread, () -> TableEnvironment.create(settings));
      sessions.put(session.handle(), new Env((TableEnvironmentInternal) tables, thread));
    } catch (RuntimeException | Error e) {
      thread.shutdownNow();
      throw e;
    }
    return session;
  }

  /** Every pool: the planner is this process's, whichever cluster the job will run on. */
  @Override
  public Session openSession(String pool, String name, Map<String, String> properties) {
    return openSession(name, properties);
  }

  @Override
  public StatementResult execute(Session session, String statement) {
    return onSessionThread(session, tables -> rows(runHere(tables, statement)));
  }

  @Override
  public void configure(Session session, String statement) {
    onSessionThread(session, tables -> runHere(tables, statement));
  }

  /** {@code work} on the session's own thread ({@link Env}). */
  private <T> T onSessionThread(Session session, Function<TableEnvironmentInternal, T> work) {
    Env env = env(session);
    try {
      return DeepStacks.call(env.thread(), () -> work.apply(env.tables()));
    } catch (StackOverflowError e) {
      throw new StatementFailedException(
          "Flink's planner ran out of stack on this statement: an expression is nested or chained"
              + " too deeply",
          0,
          0,
          List.of());
    }
  }

  private static StatementResult rows(TableResult result) {
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterator<Row> it = result.collect()) {
      while (it.hasNext()) {
        Row row = it.next();
        List<Object> values = new ArrayList<>(row.getArity());
        for (int i = 0; i < row.getArity(); i++) {
          values.add(row.getField(i));
        }
        rows.add(values);
      }
    } catch (Exception e) {
      throw failed(e);
    }
    return new StatementResult(
        List.copyOf(result.getResolvedSchema().getColumnNames()), rows, Optional.empty());
  }

  private TableResult runHere(TableEnvironmentInternal env, String statement) {
    try {
      List<Operation> operations = env.getParser().parse(statement);
      if (operations.size() != 1) {
        throw new StatementFailedException(
            "Expected one statement, got " + operations.size(), 0, 0, List.of());
      }
      Operation operation = operations.get(0);
      if (runsAJob(operation)) {
        throw new StatementFailedException(
            "The service's planner plans and describes; it runs no job: "
                + operation.getClass().getSimpleName(),
            0,
            0,
            List.of());
      }
      return env.executeInternal(operation);
    } catch (StatementFailedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw failed(e);
    }
  }

  private static boolean runsAJob(Operation operation) {
    String type = operation.getClass().getSimpleName();
    return operation instanceof ModifyOperation
        || operation instanceof QueryOperation
        || operation instanceof StatementSetOperation
        || type.contains("Plan")
        || type.contains("Job")
        || type.contains("Procedure");
  }

  /** Flink's refusal, read as the gateway's is: its message chain, the root's text, a position. */
  private static StatementFailedException failed(Throwable e) {
    StringWriter trace = new StringWriter();
    e.printStackTrace(new PrintWriter(trace));
    List<String> causes = FlinkErrors.causes(trace.toString());
    int[] position = FlinkErrors.position(causes).orElse(new int[] {0, 0});
    return new StatementFailedException(
        FlinkErrors.rootMessage(trace.toString()), position[0], position[1], causes);
  }

  @Override
  public List<Column> inferSchema(Session session, String query) {
    return QueryProbes.inferSchema(this, session, query);
  }

  @Override
  public ChangelogMode changelogMode(Session session, String query) {
    return QueryProbes.changelogMode(this, session, query);
  }

  /**
   * Both from one validation of the query: its {@link Table} gives the columns and is explained for
   * the changelog, where the probes validate it three times (the probe view, its DESCRIBE, the
   * EXPLAIN) in two sessions at once. Measured warm on the 2-core machine, alone: 29 ms, against 14
   * ms for the probe view and 33 ms for the EXPLAIN; in {@code ControlPlaneBench}, the two ways
   * interleaved by round, 49 against 58 ms (medians of 12 rounds), the two sessions sharing the
   * cores with the store's run and the cluster. The columns are printed as DESCRIBE prints them
   * (Flink's {@code ShowColumnsOperation}: the logical type made nullable, its summary string, and
   * its nullability), so that both answer alike; {@code PlannerFlinkSqlTest} compares them.
   */
  @Override
  public Description describe(Session session, String query) {
    Description described = validatedOnce(session, query);
    // Names the validator may have made unique: the probe view refuses a duplicated name with
    // Flink's message and position, or describes the query as it stands.
    return described != null ? described : FlinkSql.super.describe(session, query);
  }

  /** Null when the columns' names may have been made unique ({@link #renamed}). */
  private Description validatedOnce(Session session, String query) {
    return onSessionThread(
        session,
        tables -> {
          List<Column> columns;
          String plan;
          try {
            Table table = tables.sqlQuery(query);
            columns =
                table.getResolvedSchema().getColumns().stream()
                    .map(
                        column -> {
                          LogicalType type = column.getDataType().getLogicalType();
                          return new Column(
                              column.getName(),
                              QueryProbes.withoutTimeAttribute(type.copy(true).asSummaryString()),
                              type.isNullable());
                        })
                    .toList();
            if (renamed(columns)) {
              return null;
            }
            plan = table.explain(ExplainDetail.CHANGELOG_MODE);
          } catch (RuntimeException e) {
            throw failed(e);
          }
          return new Description(columns, QueryProbes.parseChangelogMode(plan));
        });
  }

  /**
   * Whether a name may be one the validator made unique: Calcite appends a number to a name already
   * taken ({@code SELECT a, a} gives {@code a, a0}), where a view of the query is refused. A query
   * that truly has {@code a} and {@code a0} is asked of the probes too, which is only slower.
   */
  static boolean renamed(List<Column> columns) {
    Set<String> names = new HashSet<>();
    columns.forEach(c -> names.add(c.name()));
    for (Column column : columns) {
      String stem = column.name().replaceFirst("\\d+$", "");
      if (!stem.equals(column.name()) && names.contains(stem)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void closeSession(Session session) {
    Env env = sessions.remove(session.handle());
    if (env != null) {
      env.thread().shutdown();
    }
  }

  /** The Flink version of this planner, the same for every pool. */
  @Override
  public Optional<String> version(String pool) {
    return Optional.of(EnvironmentInformation.getVersion());
  }

  /**
   * Plans a query once, so that the first validation a user waits for does not load and compile the
   * planner's classes (seconds).
   */
  public void warmUp() {
    Session session = openSession("warm-up", Map.of());
    try {
      configure(
          session,
          "CREATE TEMPORARY TABLE warm_up (x INT) WITH ('connector' = 'datagen',"
              + " 'number-of-rows' = '1')");
      inferSchema(session, "SELECT x + 1 AS y FROM warm_up");
      describe(session, "SELECT x, COUNT(*) AS n FROM warm_up GROUP BY x");
    } finally {
      closeSession(session);
    }
  }

  /** Sessions open now. */
  int open() {
    return sessions.size();
  }

  private Env env(Session session) {
    Env env = sessions.get(session.handle());
    if (env == null) {
      throw new StatementFailedException("No such session: " + session.handle(), 0, 0, List.of());
    }
    return env;
  }
}
