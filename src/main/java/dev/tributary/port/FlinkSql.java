package dev.tributary.port;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Flink SQL Gateway: sessions and statements. Statements that Flink rejects raise {@link
 * StatementFailedException} carrying Flink's own message, not its stack trace.
 */
public interface FlinkSql {

  /** A session on the SQL Gateway of the {@value FlinkJobs#DEFAULT_POOL} pool. */
  Session openSession(String name, Map<String, String> properties);

  /**
   * A session on the SQL Gateway of compute pool {@code pool}: the jobs its statements submit run
   * on that pool's cluster. Every later call with the session goes to the same gateway.
   */
  default Session openSession(String pool, String name, Map<String, String> properties) {
    FlinkJobs.requireDefault(pool);
    return openSession(name, properties);
  }

  /** Runs one statement to completion and returns all its rows (and the job id of an INSERT). */
  StatementResult execute(Session session, String statement);

  /**
   * Runs a statement that only changes the session (CREATE, DROP or ALTER of a catalog object, USE,
   * SET, ADD JAR) and returns nothing: one round trip, where {@link #execute} takes a submission,
   * its result's fetches and the operation's close. A statement of another kind is refused ({@link
   * StatementFailedException}).
   */
  default void configure(Session session, String statement) {
    execute(session, statement);
  }

  /** The columns the query would produce, found without running it. */
  List<Column> inferSchema(Session session, String query);

  /** The kinds of rows the query emits (EXPLAIN CHANGELOG_MODE). */
  ChangelogMode changelogMode(Session session, String query);

  /**
   * The query's columns and its changelog: by default {@link #inferSchema} then {@link
   * #changelogMode}; an implementation that can answer both from one validation of the query does.
   */
  default Description describe(Session session, String query) {
    return new Description(inferSchema(session, query), changelogMode(session, query));
  }

  /** A query's columns and the kinds of rows it emits. */
  record Description(List<Column> columns, ChangelogMode changelogMode) {
    public Description {
      columns = List.copyOf(columns);
    }
  }

  /**
   * The Flink version that answers for compute pool {@code pool} (its SQL Gateway's, as "2.2.1"),
   * or empty when not known.
   */
  default Optional<String> version(String pool) {
    return Optional.empty();
  }

  /** Closes the session; jobs it submitted keep running. Closing a gone session succeeds. */
  void closeSession(Session session);

  /** A gateway session handle. */
  record Session(String handle) {}

  /** A finished statement's result. */
  record StatementResult(List<String> columns, List<List<Object>> rows, Optional<String> jobId) {}

  /** One output column of a query, with the type as Flink prints it (without NOT NULL). */
  @Schema(name = "QueryColumn", description = "A column of a query's result, as Flink types it")
  record Column(String name, String type, boolean nullable) {}

  /** Flink row kinds. */
  enum RowKind {
    INSERT,
    UPDATE_BEFORE,
    UPDATE_AFTER,
    DELETE
  }

  /** The row kinds a query emits; insert-only queries can go to an append topic. */
  record ChangelogMode(Set<RowKind> kinds) {
    public ChangelogMode {
      kinds = Set.copyOf(kinds);
    }

    public boolean insertOnly() {
      return kinds.equals(Set.of(RowKind.INSERT));
    }
  }

  /**
   * Flink rejected a statement. {@code line} and {@code column} are those Flink reported (0 when it
   * did not); {@code causes} is the chain of messages, outermost first.
   */
  final class StatementFailedException extends RemoteSystemException {
    private final int line;
    private final int column;
    private final List<String> causes;

    public StatementFailedException(String message, int line, int column, List<String> causes) {
      super(ExternalSystem.FLINK, message, false);
      this.line = line;
      this.column = column;
      this.causes = List.copyOf(causes);
    }

    public int line() {
      return line;
    }

    public int column() {
      return column;
    }

    public List<String> causes() {
      return causes;
    }
  }
}
