package dev.tributary.plan;

import dev.tributary.port.FlinkSql;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Column;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.QueryAnalysis;
import dev.tributary.sql.QueryReferences;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.Beside;
import dev.tributary.system.ServerTiming;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Talks to Flink about a table's query: opens a session in which every table the query reads is
 * declared, then validates the query (its output schema and changelog mode) or submits its job.
 */
public class QueryPlanner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(QueryPlanner.class);

  /**
   * Finds the declaration of a table that a query reads: a source table or another materialized
   * table.
   */
  public interface Catalog {
    Optional<Statement.CreateSourceTable> declaration(ObjectName name);

    /**
     * A materialized table whose columns are not known yet (created, not provisioned: its query has
     * not been described by Flink for it): for validation only, it is declared as a temporary view
     * of its query, so that a script can create a table and a table over it at once.
     */
    default Optional<Pending> pending(ObjectName name) {
      return Optional.empty();
    }
  }

  /** A table that is not provisioned yet, and the query it will hold the result of. */
  public record Pending(ObjectName name, String query) {}

  /**
   * Extra options for a Kafka source of a job, given the source's own options: a consumer group and
   * where to start. A {@code scan.startup.mode} among them replaces the source's own.
   */
  @FunctionalInterface
  public interface SourceOptions {
    Map<String, String> apply(Map<String, String> sourceOptions);

    SourceOptions NONE = options -> Map.of();
  }

  /**
   * The declarations a query resolves to, read once from the live catalog: planning over a snapshot
   * makes remote calls only, so it can run outside any database transaction. Equal snapshots mean
   * the catalog did not change for the query.
   */
  public record Snapshot(
      Map<ObjectName, Statement.CreateSourceTable> declarations, Map<ObjectName, Pending> pending)
      implements Catalog {
    public Snapshot {
      declarations = Map.copyOf(declarations);
      pending = Map.copyOf(pending);
    }

    @Override
    public Optional<Statement.CreateSourceTable> declaration(ObjectName name) {
      return Optional.ofNullable(declarations.get(name));
    }

    @Override
    public Optional<Pending> pending(ObjectName name) {
      return Optional.ofNullable(pending.get(name));
    }
  }

  /** How deep pending tables over pending tables are followed (a script's chain). */
  static final int MAX_PENDING_DEPTH = 16;

  /** What a query produces: its columns and whether it emits updates. */
  public record QueryShape(List<FlinkSql.Column> columns, FlinkSql.ChangelogMode changelogMode) {}

  /** The query cannot back the table; each problem is one sentence for the user. */
  public static final class InvalidQueryException extends RuntimeException {
    private final List<String> problems;
    private final int line;
    private final int column;
    private final boolean byFlink;

    public InvalidQueryException(List<String> problems, int line, int column) {
      this(problems, line, column, false);
    }

    InvalidQueryException(List<String> problems, int line, int column, boolean byFlink) {
      super(String.join("; ", problems));
      this.problems = List.copyOf(problems);
      this.line = line;
      this.column = column;
      this.byFlink = byFlink;
    }

    /** Flink itself refused the query (rather than a check of the table's definition). */
    /** The problems, and where Flink found the first one in the query, for a problem response. */
    public Map<String, Object> properties() {
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("problems", problems);
      if (line > 0) {
        properties.put("queryLine", line);
        properties.put("queryColumn", column);
      }
      return properties;
    }

    public boolean byFlink() {
      return byFlink;
    }

    public List<String> problems() {
      return problems;
    }

    /** Position in the query (0 when not known). */
    public int line() {
      return line;
    }

    public int column() {
      return column;
    }
  }

  private final FlinkSql sql;
  private final Catalog catalog;

  /**
   * What Flink recently said of queries (see {@link #described}). Entries serve a check for {@link
   * #CACHE_FOR}, so that a change Flink sees and the key does not (a jar, the cluster's version) is
   * noticed soon, and the reconciler's first look at an accepted definition for {@link
   * #ACCEPTED_FOR}.
   */
  private final Map<String, Cached> recent;

  private static final Duration CACHE_FOR = Duration.ofMinutes(1);

  private record Cached(QueryShape shape, Instant at) {}

  /** Sessions kept warm for validations, shared by this planner and those over snapshots. */
  private final WarmSessions warm;

  /**
   * Flink's planner in this process, or null: asked before the gateway, when the pool's gateway
   * runs the same Flink version (see {@link #described}). Its sessions are kept warm as the
   * gateway's are.
   */
  private final Local local;

  private final Clock clock;

  /** The planner in this process, its warm sessions, and which pools' gateways match it. */
  private record Local(
      FlinkSql planner, WarmSessions warm, Map<String, Matched> pools, AtomicBoolean broken) {}

  /** Whether a pool's gateway ran the planner's version when last asked. */
  private record Matched(boolean same, Instant at) {}

  public QueryPlanner(FlinkSql sql, Catalog catalog) {
    this(sql, catalog, Clock.systemUTC());
  }

  /** With {@code clock} timing what Flink said (tests move it). */
  public QueryPlanner(FlinkSql sql, Catalog catalog, Clock clock) {
    this(sql, null, catalog, clock);
  }

  /**
   * With {@code planner}, Flink's planner in this process (or null), asked before the gateway of a
   * pool that runs its version.
   */
  public QueryPlanner(FlinkSql sql, FlinkSql planner, Catalog catalog, Clock clock) {
    this(
        sql,
        catalog,
        new ConcurrentHashMap<>(),
        new WarmSessions(sql),
        planner == null
            ? null
            : new Local(
                planner, new WarmSessions(planner), new ConcurrentHashMap<>(), new AtomicBoolean()),
        clock);
  }

  private QueryPlanner(
      FlinkSql sql,
      Catalog catalog,
      Map<String, Cached> recent,
      WarmSessions warm,
      Local local,
      Clock clock) {
    this.sql = sql;
    this.catalog = catalog;
    this.recent = recent;
    this.warm = warm;
    this.local = local;
    this.clock = clock;
  }

  /** Closes the warm sessions (the planner's bean ends with the service). */
  @Override
  public void close() {
    warm.close();
    if (local != null) {
      local.warm().close();
    }
  }

  /** The declarations of every table the queries read, from the live catalog. */
  public Snapshot snapshot(ObjectName table, List<String> queries) {
    Map<ObjectName, Statement.CreateSourceTable> declarations = new LinkedHashMap<>();
    Map<ObjectName, Pending> pending = new LinkedHashMap<>();
    for (String query : queries) {
      collect(table, query, declarations, pending, 0);
    }
    return new Snapshot(declarations, pending);
  }

  /** The declarations a query reads, and those of the pending tables it reads, recursively. */
  private void collect(
      ObjectName context,
      String query,
      Map<ObjectName, Statement.CreateSourceTable> declarations,
      Map<ObjectName, Pending> pending,
      int depth) {
    for (ObjectName reference : QueryReferences.tables(query)) {
      ObjectName name = reference.resolve(context.catalog(), context.database());
      if (declarations.containsKey(name) || pending.containsKey(name)) {
        continue;
      }
      Optional<Statement.CreateSourceTable> declared = catalog.declaration(name);
      if (declared.isPresent()) {
        declarations.put(name, declared.get());
        continue;
      }
      Optional<Pending> table = catalog.pending(name);
      if (table.isPresent() && depth < MAX_PENDING_DEPTH) {
        pending.put(name, table.get());
        collect(name, table.get().query(), declarations, pending, depth + 1);
      } else if (table.isEmpty()) {
        // Provisioned between the two looks (the reconciler runs meanwhile): declared now.
        catalog.declaration(name).ifPresent(d -> declarations.put(name, d));
      }
    }
  }

  /** The tables a query reads that are not provisioned yet (a job cannot read them yet). */
  public List<ObjectName> pendingSources(ObjectName table, String query) {
    List<ObjectName> names = new ArrayList<>();
    for (ObjectName reference : QueryReferences.tables(query)) {
      ObjectName name = reference.resolve(table.catalog(), table.database());
      if (!names.contains(name)
          && catalog.declaration(name).isEmpty()
          && catalog.pending(name).isPresent()) {
        names.add(name);
      }
    }
    return names;
  }

  /** Session options naming the built-in catalog and database (Flink's TableConfigOptions). */
  static final String BUILTIN_CATALOG = "table.builtin-catalog-name";

  static final String BUILTIN_DATABASE = "table.builtin-database-name";

  /** This planner over a snapshot of the catalog instead of the live one. */
  public QueryPlanner over(Snapshot snapshot) {
    return new QueryPlanner(sql, snapshot, recent, warm, local, clock);
  }

  /**
   * Validates the query of a definition: Flink must accept it, an explicit column list must match
   * what it produces, and a query that emits updates needs a primary key (or retract mode).
   */
  public QueryShape validate(ObjectName table, MaterializedTableDefinition definition) {
    return validate(table, definition, CACHE_FOR);
  }

  /**
   * As {@link #validate}, for a definition the service accepted already (the reconciler's first
   * look at it): an answer Flink gave to the very same question within {@link #ACCEPTED_FOR} is
   * taken, typically the one the accepting call got. A declared set of hundreds of tables is
   * reconciled over minutes, and asking Flink again for each is the gateway's time the jobs wait
   * for. The job's submission is planned by Flink anyway: what changed in between (a jar, the
   * cluster) is refused there, with Flink's message.
   */
  public QueryShape validateAccepted(ObjectName table, MaterializedTableDefinition definition) {
    return validate(table, definition, ACCEPTED_FOR, false);
  }

  /**
   * What {@link #validateAccepted} answers from what Flink said of the very same question, without
   * asking Flink: empty when it would ask.
   */
  public Optional<QueryShape> acceptedFromKept(
      ObjectName table, MaterializedTableDefinition definition) {
    return Optional.ofNullable(validate(table, definition, ACCEPTED_FOR, true));
  }

  public static final Duration ACCEPTED_FOR = Duration.ofMinutes(15);

  private QueryShape validate(
      ObjectName table, MaterializedTableDefinition definition, Duration maxAge) {
    return validate(table, definition, maxAge, false);
  }

  /** Null with {@code keptOnly} when no answer kept serves (Flink is not asked then). */
  private QueryShape validate(
      ObjectName table, MaterializedTableDefinition definition, Duration maxAge, boolean keptOnly) {
    // A FULL table's refresh runs in BATCH mode when its sources are insert-only: plan it so.
    boolean batch =
        Defaults.effective(definition).refreshMode() == Clauses.RefreshMode.FULL
            && sourceDeclarations(table, definition.query()).stream()
                .allMatch(QueryPlanner::insertOnly);
    QueryShape shape =
        described(
            table,
            TableOptions.pool(definition.options()),
            definition.query(),
            batch,
            maxAge,
            keptOnly);
    return shape == null ? null : checked(definition, shape);
  }

  /**
   * What Flink says of {@code query}: its columns and changelog. Kept for {@link #CACHE_FOR} by
   * exactly what Flink is given (the session's catalog, database and mode, every declaration it
   * runs, and the query), so that the CREATE's check, the reconciler's validation and every
   * statement of a script that changes only options, freshness or column names ask Flink once,
   * while a changed source table or upstream query is a new question. A refusal is not kept.
   *
   * <p>It is asked of Flink's planner in this process when the SQL Gateway of the compute pool the
   * job will run on runs the same Flink version, else of that gateway. What the planner here
   * refuses is asked of the gateway too, whose connectors, formats and functions are the ones that
   * count: its refusal stands, with its message and position.
   */
  private QueryShape described(
      ObjectName table,
      String pool,
      String query,
      boolean batch,
      Duration maxAge,
      boolean keptOnly) {
    // As a job's sources are given one: a source that starts from group offsets (Kafka's
    // default) needs a consumer group to plan; a refresh bounds them.
    SourceOptions options =
        declared -> {
          Map<String, String> extra = new HashMap<>();
          if (!declared.containsKey("properties.group.id")) {
            extra.put("properties.group.id", "tributary-validation");
          }
          if (batch) {
            extra.put("scan.bounded.mode", "latest-offset");
          }
          return extra;
        };
    List<String> declarations = declarations(table, query, options, true);
    String key =
        pool
            + "\n"
            + table.catalog()
            + "\n"
            + table.database()
            + "\n"
            + batch
            + "\n"
            + String.join("\n;\n", declarations)
            + "\n;\n"
            + query;
    Cached cached = recent.get(key);
    if (cached != null && cached.at().isAfter(clock.instant().minus(maxAge))) {
      return cached.shape();
    }
    if (keptOnly) {
      return null;
    }
    QueryShape shape = null;
    if (local != null && !local.broken().get() && sameVersion(pool)) {
      try {
        shape =
            ServerTiming.time(
                "flinkPlanner",
                () ->
                    shape(
                        local.planner(),
                        local.warm(),
                        true,
                        table,
                        pool,
                        declarations,
                        query,
                        batch));
      } catch (FlinkSql.StatementFailedException e) {
        // The gateway has the last word on a refusal: a connector, format or function that only
        // the cluster has, and the message and position users know from Flink's own gateway.
        log.debug("The planner here refused a query; the gateway is asked: {}", e.getMessage());
      } catch (RuntimeException e) {
        log.warn("The planner here failed; the gateway is asked", e);
      } catch (LinkageError e) {
        local.broken().set(true); // its classes will not load on a second try either
        log.warn("Flink's planner cannot load here: validation asks the gateways from now on", e);
      }
    }
    if (shape == null) {
      try {
        shape = shape(sql, warm, false, table, pool, declarations, query, batch);
      } catch (FlinkSql.StatementFailedException e) {
        throw new InvalidQueryException(List.of(e.getMessage()), e.line(), e.column(), true);
      }
    }
    if (recent.size() > 5000) {
      recent.clear();
    }
    recent.put(key, new Cached(shape, clock.instant()));
    return shape;
  }

  /**
   * Flink's columns and changelog for {@code query}, asked of {@code flink} in warm sessions: with
   * {@code atOnce} (the planner here, which answers both from one validation, see {@link
   * FlinkSql#describe}) in one, else in two at the same time.
   */
  private QueryShape shape(
      FlinkSql flink,
      WarmSessions sessions,
      boolean atOnce,
      ObjectName table,
      String pool,
      List<String> declarations,
      String query,
      boolean batch) {
    if (batch) {
      // A batch plan has no changelog: its result is a set of rows, insert-only.
      return new QueryShape(
          inWarmSession(
              sessions,
              table,
              pool,
              declarations,
              Map.of("execution.runtime-mode", "batch"),
              session -> flink.inferSchema(session, query)),
          new FlinkSql.ChangelogMode(Set.of(FlinkSql.RowKind.INSERT)));
    }
    if (atOnce) {
      FlinkSql.Description description =
          inWarmSession(
              sessions, table, pool, declarations, Map.of(), s -> flink.describe(s, query));
      return new QueryShape(description.columns(), description.changelogMode());
    }
    // The changelog mode (an EXPLAIN, the optimizer's work) is asked in a second warm session
    // while the first describes the columns: the two take the longer one's time, not the sum.
    CompletableFuture<FlinkSql.ChangelogMode> mode =
        Beside.ask(
            () ->
                inWarmSession(
                    sessions,
                    table,
                    pool,
                    declarations,
                    Map.of(),
                    session -> flink.changelogMode(session, query)));
    // A query Flink refuses is refused here first, with its position; the EXPLAIN then ends on
    // its own.
    List<FlinkSql.Column> columns =
        inWarmSession(
            sessions,
            table,
            pool,
            declarations,
            Map.of(),
            session -> flink.inferSchema(session, query));
    return new QueryShape(columns, Beside.await(mode));
  }

  /**
   * Whether compute pool {@code pool}'s gateway runs the Flink version of the planner here: asked
   * at most once per {@link #CACHE_FOR}, so that an upgraded cluster is noticed soon. A gateway
   * that does not answer is not matched (the gateway path reports it).
   */
  private boolean sameVersion(String pool) {
    Matched known = local.pools().get(pool);
    if (known != null && known.at().isAfter(clock.instant().minus(CACHE_FOR))) {
      return known.same();
    }
    boolean same;
    try {
      Optional<String> theirs = sql.version(pool);
      same = theirs.isPresent() && theirs.equals(local.planner().version(pool));
    } catch (RuntimeException e) {
      return false;
    }
    local.pools().put(pool, new Matched(same, clock.instant()));
    return same;
  }

  /** The definition's own rules over what Flink said: declared columns, partitions, a key. */
  private static QueryShape checked(MaterializedTableDefinition definition, QueryShape shape) {
    List<String> problems = new ArrayList<>();
    List<FlinkSql.Column> columns = shape.columns();
    TableSchema schema = definition.schema();
    if (TableSchema.namesOnly(schema)) {
      List<String> names =
          schema.columns().stream()
              .filter(c -> c.kind() == Column.Kind.PHYSICAL)
              .map(Column::name)
              .toList();
      List<String> produced = columns.stream().map(FlinkSql.Column::name).toList();
      if (!new HashSet<>(names).equals(new HashSet<>(produced))
          || names.size() != produced.size()) {
        problems.add(
            "The table lists columns "
                + names
                + " but the query produces "
                + produced
                + "; a list of names must name every column of the query, in any order");
      } else {
        List<FlinkSql.Column> byName = columns;
        columns =
            names.stream()
                .map(n -> byName.stream().filter(c -> c.name().equals(n)).findFirst().orElseThrow())
                .toList();
      }
    } else if (TableSchema.hasDeclaredTypes(schema)) {
      List<Column> declared =
          schema.columns().stream().filter(c -> c.kind() == Column.Kind.PHYSICAL).toList();
      problems.addAll(compare(declared, columns));
      columns =
          declared.stream()
              .map(c -> new FlinkSql.Column(c.name(), c.type(), !c.notNull()))
              .toList();
    }
    for (String partition : definition.partitionedBy()) {
      Optional<FlinkSql.Column> column =
          columns.stream().filter(c -> c.name().equals(partition)).findFirst();
      if (column.isEmpty()) {
        problems.add("PARTITIONED BY names '" + partition + "', which the query does not produce");
      } else if (!normalize(column.get().type()).matches("STRING|VARCHAR.*|CHAR.*")) {
        problems.add(
            "Partition column '"
                + partition
                + "' is "
                + column.get().type()
                + "; a partition is selected by its text value (REFRESH PARTITION, the"
                + " date-formatter), so partition columns must be STRING, as in Flink");
      }
    }
    MaterializedTableDefinition keyedDefinition = Defaults.withDerivedKey(definition);
    boolean keyed =
        keyedDefinition.schema() != null && keyedDefinition.schema().primaryKey() != null;
    String mode = definition.options().getOrDefault("changelog.mode", keyed ? "upsert" : "append");
    if (!shape.changelogMode().insertOnly() && !keyed && !mode.equals("retract")) {
      problems.add(
          "The query produces updates "
              + kinds(shape.changelogMode())
              + " and Flink derives no key for it (a key is derived from the GROUP BY items of"
              + " an aggregation, columns or expressions, when the SELECT list has them all"
              + missingGroupItems(definition.query())
              + "), so the table needs one: declare PRIMARY KEY (...) NOT ENFORCED on the key"
              + " columns, or set 'changelog.mode' = 'retract'");
    }
    if (!problems.isEmpty()) {
      throw new InvalidQueryException(problems, 0, 0);
    }
    return new QueryShape(columns, shape.changelogMode());
  }

  private static String missingGroupItems(String query) {
    List<String> missing = QueryAnalysis.unselectedGroupItems(query);
    return missing.isEmpty()
        ? ""
        : "; this query groups by "
            + String.join(", ", missing)
            + " without selecting it: select it with a name and that makes the key";
  }

  /**
   * Runs {@code work} in a fresh session on compute pool {@code pool}'s gateway where the tables
   * the query reads are declared (Kafka sources with {@code startOptions} applied) and the table's
   * catalog and database are current: the session a job is submitted from.
   */
  public <T> T inSession(
      ObjectName table,
      String pool,
      String query,
      SourceOptions startOptions,
      Map<String, String> sessionProperties,
      Function<FlinkSql.Session, T> work) {
    return inSession(
        table,
        pool,
        () -> declarations(table, query, startOptions, false),
        sessionProperties,
        work);
  }

  /**
   * A warm session of the table's catalog and database that has run {@code declarations} (see
   * {@link WarmSessions}): for validation, whose statements leave the session as it was but for a
   * probe view of their own.
   */
  private <T> T inWarmSession(
      WarmSessions sessions,
      ObjectName table,
      String pool,
      List<String> declarations,
      Map<String, String> sessionProperties,
      Function<FlinkSql.Session, T> work) {
    return sessions.with(
        new WarmSessions.Key(
            pool,
            "tributary-validation",
            Map.copyOf(inTablesDatabase(table, sessionProperties)),
            List.copyOf(declarations)),
        work);
  }

  /**
   * The session's properties with its built-in catalog and database the table's own, so that they
   * need no CREATE CATALOG, CREATE DATABASE or USE: three statements fewer in every session.
   */
  private static Map<String, String> inTablesDatabase(
      ObjectName table, Map<String, String> sessionProperties) {
    Map<String, String> properties = new HashMap<>(sessionProperties);
    properties.put(BUILTIN_CATALOG, table.catalog());
    properties.put(BUILTIN_DATABASE, table.database());
    return properties;
  }

  /**
   * A fresh session of the table's catalog and database that has run {@code declarations}, made
   * once the session is open: what they need (a source's start offsets) is asked meanwhile.
   */
  private <T> T inSession(
      ObjectName table,
      String pool,
      Supplier<List<String>> declarations,
      Map<String, String> sessionProperties,
      Function<FlinkSql.Session, T> work) {
    FlinkSql.Session session =
        sql.openSession(
            pool, "tributary-" + table.name(), inTablesDatabase(table, sessionProperties));
    try {
      for (String statement : declarations.get()) {
        sql.configure(session, statement);
      }
      return work.apply(session);
    } finally {
      sql.closeSession(session);
    }
  }

  /**
   * Catalogs, databases and tables to declare so that the query resolves, in a session whose
   * built-in catalog and database are the table's (see {@link #inSession}).
   */
  List<String> declarations(
      ObjectName table, String query, SourceOptions startOptions, boolean withPending) {
    List<String> statements = new ArrayList<>();
    Set<String> catalogs = new LinkedHashSet<>();
    Set<String> databases = new LinkedHashSet<>();
    List<Statement.CreateSourceTable> sources = new ArrayList<>();
    List<Pending> views = new ArrayList<>();
    if (withPending) {
      Map<ObjectName, Statement.CreateSourceTable> declared = new LinkedHashMap<>();
      Map<ObjectName, Pending> pending = new LinkedHashMap<>();
      collect(table, query, declared, pending, 0);
      sources.addAll(declared.values());
      views.addAll(pending.values());
      Collections.reverse(views); // the deepest first: a view's own sources exist before it
    } else {
      for (ObjectName reference : QueryReferences.tables(query)) {
        ObjectName name = reference.resolve(table.catalog(), table.database());
        catalog.declaration(name).ifPresent(sources::add);
      }
    }
    catalogs.add(table.catalog()); // the session's built-in ones
    databases.add(table.catalog() + "." + table.database());
    List<ObjectName> names = new ArrayList<>(sourcesAndSelf(table, sources));
    views.forEach(v -> names.add(v.name()));
    for (ObjectName name : names) {
      if (catalogs.add(name.catalog())) {
        statements.add(
            "CREATE CATALOG IF NOT EXISTS "
                + Printer.identifier(name.catalog())
                + " WITH ('type' = 'generic_in_memory')");
      }
      if (databases.add(name.catalog() + "." + name.database())) {
        statements.add(
            "CREATE DATABASE IF NOT EXISTS "
                + Printer.identifier(name.catalog())
                + "."
                + Printer.identifier(name.database()));
      }
    }
    for (Statement.CreateSourceTable source : sources) {
      Map<String, String> options = new HashMap<>(source.options());
      String connector = options.get("connector");
      if ("kafka".equals(connector) || "upsert-kafka".equals(connector)) {
        Map<String, String> extra = startOptions.apply(source.options());
        if (extra.containsKey("scan.startup.mode")) {
          options.keySet().removeIf(k -> k.startsWith("scan.startup."));
        }
        for (String prefix : new String[] {"", "value."}) {
          String inner = extra.get(prefix + "guarded.format");
          if (inner != null) {
            // The inner format's options are given to the guarded format, under its name.
            options.keySet().removeIf(k -> k.startsWith(prefix + inner + "."));
          }
        }
        options.putAll(extra);
      }
      Statement.CreateSourceTable declared =
          new Statement.CreateSourceTable(
              source.name(), true, source.schema(), source.comment(), options);
      if ("log".equals(options.get("guarded.mode"))
          || "log".equals(options.get("value.guarded.mode"))) {
        statements.addAll(DeadLetters.declarations(declared));
      } else {
        statements.add(Printer.print(declared));
      }
    }
    for (Pending view : views) {
      // Names in its query resolve in its own catalog and database.
      boolean elsewhere =
          !view.name().catalog().equals(table.catalog())
              || !view.name().database().equals(table.database());
      if (elsewhere) {
        statements.add(use(view.name()));
      }
      statements.add(
          "CREATE TEMPORARY VIEW "
              + Printer.identifier(view.name().catalog())
              + "."
              + Printer.identifier(view.name().database())
              + "."
              + Printer.identifier(view.name().name())
              + " AS\n"
              + view.query());
      if (elsewhere) {
        statements.add(use(table));
      }
    }
    return statements;
  }

  private static String use(ObjectName name) {
    return "USE " + Printer.identifier(name.catalog()) + "." + Printer.identifier(name.database());
  }

  /**
   * Insert-only: a plain Kafka source of rows, not an upsert table or a change stream. Flink's
   * batch mode reads only such sources.
   */
  public static boolean insertOnly(Statement.CreateSourceTable source) {
    String connector = source.options().get("connector");
    String format =
        source.options().getOrDefault("value.format", source.options().getOrDefault("format", ""));
    return "kafka".equals(connector)
        && !format.contains("debezium")
        && !format.contains("changelog")
        && !format.contains("canal")
        && !format.contains("maxwell")
        && !format.contains("ogg");
  }

  /** The declaration of one table of the catalog (a source or a provisioned materialized table). */
  public Optional<Statement.CreateSourceTable> declaration(ObjectName name) {
    return catalog.declaration(name);
  }

  /** The declarations of the tables a query reads (sources and provisioned materialized tables). */
  public List<Statement.CreateSourceTable> sourceDeclarations(ObjectName table, String query) {
    List<Statement.CreateSourceTable> found = new ArrayList<>();
    for (ObjectName name : sources(table, query)) {
      catalog.declaration(name).ifPresent(found::add);
    }
    return found;
  }

  /** The declared tables (sources and other materialized tables) that a query reads. */
  public List<ObjectName> sources(ObjectName table, String query) {
    List<ObjectName> names = new ArrayList<>();
    for (ObjectName reference : QueryReferences.tables(query)) {
      ObjectName name = reference.resolve(table.catalog(), table.database());
      if (!names.contains(name) && catalog.declaration(name).isPresent()) {
        names.add(name);
      }
    }
    return names;
  }

  private static List<ObjectName> sourcesAndSelf(
      ObjectName table, List<Statement.CreateSourceTable> sources) {
    List<ObjectName> names = new ArrayList<>();
    sources.forEach(s -> names.add(s.name()));
    names.add(table);
    return names;
  }

  /** Each mismatch between declared columns and what the query produces, as a sentence. */
  static List<String> compare(List<Column> declared, List<FlinkSql.Column> produced) {
    List<String> problems = new ArrayList<>();
    List<String> declaredNames = declared.stream().map(Column::name).toList();
    List<String> producedNames = produced.stream().map(FlinkSql.Column::name).toList();
    if (!declaredNames.equals(producedNames)) {
      problems.add(
          "The table declares columns "
              + declaredNames
              + " but the query produces "
              + producedNames);
      return problems;
    }
    for (int i = 0; i < declared.size(); i++) {
      Column d = declared.get(i);
      FlinkSql.Column p = produced.get(i);
      // The sink declares the column's type: a narrower one is cast on INSERT (Flink drops a
      // widening CAST from the query's type, so the query shows the narrower one).
      if (!normalize(d.type()).equals(normalize(p.type()))
          && !widens(normalize(p.type()), normalize(d.type()))) {
        problems.add(
            "Column '"
                + d.name()
                + "' is declared "
                + d.type()
                + " but the query produces "
                + p.type());
      } else if (d.notNull() && p.nullable()) {
        problems.add(
            "Column '" + d.name() + "' is declared NOT NULL but the query can produce NULL");
      }
    }
    return problems;
  }

  private static final List<String> INTEGERS = List.of("TINYINT", "SMALLINT", "INT", "BIGINT");

  /**
   * A type that goes into another without loss, as an INSERT casts implicitly: text into longer or
   * unbounded text, an integer into a wider integer or a floating point, FLOAT into DOUBLE.
   */
  public static boolean widens(String from, String to) {
    String fromBase = from.replaceAll("\\(.*", "");
    String toBase = to.replaceAll("\\(.*", "");
    if (Set.of("CHAR", "VARCHAR", "STRING").contains(fromBase)) {
      if (to.equals("STRING") || to.equals("VARCHAR(2147483647)")) {
        return true;
      }
      return toBase.equals("VARCHAR") && length(to) >= length(from);
    }
    if (INTEGERS.contains(fromBase)) {
      return (INTEGERS.contains(toBase) && INTEGERS.indexOf(toBase) >= INTEGERS.indexOf(fromBase))
          || toBase.equals("DOUBLE")
          || toBase.equals("FLOAT");
    }
    return fromBase.equals("FLOAT") && toBase.equals("DOUBLE");
  }

  private static int length(String type) {
    int open = type.indexOf('(');
    return open < 0
        ? Integer.MAX_VALUE
        : Integer.parseInt(type.substring(open + 1, type.indexOf(')')).strip());
  }

  /** A Flink type in canonical form, so that the same type compares equal however written. */
  public static String normalize(String type) {
    String t = type.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ").replace(", ", ",").strip();
    return switch (t) {
      case "VARCHAR(2147483647)" -> "STRING";
      case "INTEGER" -> "INT";
      case "TIMESTAMP" -> "TIMESTAMP(6)";
      case "DEC", "DECIMAL", "NUMERIC" -> "DECIMAL(10,0)";
      default ->
          t.replace("INTEGER", "INT").replace("NUMERIC(", "DECIMAL(").replace("DEC(", "DECIMAL(");
    };
  }

  private static String kinds(FlinkSql.ChangelogMode mode) {
    return mode.kinds().stream().map(Enum::name).sorted().toList().toString();
  }
}
