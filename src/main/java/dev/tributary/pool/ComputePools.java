package dev.tributary.pool;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.FlinkJobs;
import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.TributaryProperties;
import java.net.URI;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The compute pools: the configured Flink cluster is the pool {@value FlinkJobs#DEFAULT_POOL} (from
 * {@code tributary.flink.*}, never stored, so a deployment with one cluster has nothing to set up),
 * the others are rows of {@code compute_pool}, written through the API. The directory the Flink
 * adapters route by reads them through a cache of a few seconds, so another replica's change
 * reaches this one that soon.
 */
@Service
public class ComputePools implements ComputePoolDirectory {

  /** DNS-label names, as Confluent Manager for Apache Flink's resources have. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static final Duration CACHED = Duration.ofSeconds(5);

  /** A pool as stored (or configured) and answered. */
  public record Pool(
      String name,
      URI restUrl,
      URI sqlGatewayUrl,
      Integer parallelism,
      Integer maxSlots,
      boolean configured,
      String createdBy,
      Instant createdAt,
      Instant updatedAt) {

    Cluster cluster() {
      return new Cluster(name, restUrl, sqlGatewayUrl, parallelism, maxSlots);
    }
  }

  /** What a PUT asks for. */
  public record Definition(URI restUrl, URI sqlGatewayUrl, Integer parallelism, Integer maxSlots) {}

  private record Loaded(Instant at, Map<String, Pool> pools) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final AuditLog audit;
  private final Pool configured;
  private final List<Pool> configuredPools;
  private final Clock clock;
  private volatile Loaded loaded;

  public ComputePools(
      JdbcTemplate jdbc,
      TransactionTemplate transactions,
      AuditLog audit,
      TributaryProperties properties) {
    this.jdbc = jdbc;
    this.transactions = transactions;
    this.audit = audit;
    this.clock = Clock.systemUTC();
    TributaryProperties.Flink flink = properties.flink();
    this.configured =
        new Pool(
            FlinkJobs.DEFAULT_POOL,
            flink.restUrl(),
            flink.sqlGatewayUrl(),
            null,
            null,
            true,
            null,
            null,
            null);
    List<Pool> fromConfiguration = new ArrayList<>();
    new TreeMap<>(flink.pools())
        .forEach(
            (name, p) -> {
              try {
                requireName(name);
                requireUrl("rest-url", p.restUrl());
                requireUrl("sql-gateway-url", p.sqlGatewayUrl());
              } catch (ApiException e) {
                throw new IllegalStateException(
                    "tributary.flink.pools." + name + ": " + e.getMessage(), e);
              }
              fromConfiguration.add(
                  new Pool(
                      name,
                      p.restUrl(),
                      p.sqlGatewayUrl(),
                      p.parallelism(),
                      p.maxSlots(),
                      true,
                      null,
                      null,
                      null));
            });
    this.configuredPools = List.copyOf(fromConfiguration);
  }

  private boolean isConfigured(String name) {
    return name.equals(FlinkJobs.DEFAULT_POOL)
        || configuredPools.stream().anyMatch(p -> p.name().equals(name));
  }

  /**
   * Every pool: {@value FlinkJobs#DEFAULT_POOL} first, then those of the configuration, then those
   * of the store (a stored pool a configured one has the name of is not served).
   */
  public List<Pool> list() {
    List<Pool> all = new ArrayList<>();
    all.add(configured);
    all.addAll(configuredPools);
    jdbc
        .query(
            "SELECT name, rest_url, sql_gateway_url, parallelism, max_slots, created_by,"
                + " created_at, updated_at FROM compute_pool ORDER BY name",
            ComputePools::row)
        .stream()
        .filter(p -> !isConfigured(p.name()))
        .forEach(all::add);
    return all;
  }

  /** The pool, read from the store; 404 when there is none of that name. */
  public Pool get(String name) {
    return find(name)
        .orElseThrow(
            () -> new ApiException(ErrorCode.NOT_FOUND, "Compute pool " + name + " not found"));
  }

  /** The pool of that name: a configured one, else the stored row (one query, by key). */
  public Optional<Pool> find(String name) {
    if (isConfigured(name)) {
      return name.equals(FlinkJobs.DEFAULT_POOL)
          ? Optional.of(configured)
          : configuredPools.stream().filter(p -> p.name().equals(name)).findFirst();
    }
    return jdbc
        .query(
            "SELECT name, rest_url, sql_gateway_url, parallelism, max_slots, created_by,"
                + " created_at, updated_at FROM compute_pool WHERE name = ?",
            ComputePools::row,
            name)
        .stream()
        .findFirst();
  }

  /** Creates or replaces a pool; answers it and whether it was created. */
  public Pool put(String name, Definition d) {
    requireName(name);
    if (name.equals(FlinkJobs.DEFAULT_POOL)) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Compute pool default is the configured cluster (tributary.flink.rest-url and"
              + " tributary.flink.sql-gateway-url); change it there");
    }
    if (isConfigured(name)) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Compute pool "
              + name
              + " is configured (tributary.flink.pools."
              + name
              + "); change it there");
    }
    URI rest = requireUrl("restUrl", d.restUrl());
    URI gateway = requireUrl("sqlGatewayUrl", d.sqlGatewayUrl());
    requireAtLeast("parallelism", d.parallelism(), 1);
    requireAtLeast("maxSlots", d.maxSlots(), 0);
    Pool before = find(name).orElse(null);
    transactions.executeWithoutResult(
        tx -> {
          jdbc.update(
              "INSERT INTO compute_pool (name, rest_url, sql_gateway_url, parallelism, max_slots,"
                  + " created_by) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                  + " rest_url = EXCLUDED.rest_url, sql_gateway_url = EXCLUDED.sql_gateway_url,"
                  + " parallelism = EXCLUDED.parallelism, max_slots = EXCLUDED.max_slots,"
                  + " updated_at = now()",
              name,
              rest.toString(),
              gateway.toString(),
              d.parallelism(),
              d.maxSlots(),
              Access.caller().name());
          audit.changed(
              before == null ? "CREATE COMPUTE POOL" : "ALTER COMPUTE POOL",
              "compute-pool " + name,
              before == null ? null : describe(before),
              describe(
                  new Pool(
                      name,
                      rest,
                      gateway,
                      d.parallelism(),
                      d.maxSlots(),
                      false,
                      null,
                      null,
                      null)));
        });
    loaded = null;
    return get(name);
  }

  /** Deletes a pool no table is placed on or runs on. */
  public void delete(String name) {
    Pool pool = get(name);
    if (pool.configured()) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Compute pool " + name + " is configured (tributary.flink.*); it goes with its settings");
    }
    transactions.executeWithoutResult(
        tx -> {
          // Locks the row: a table placed on it meanwhile is counted by the planner's check.
          jdbc.queryForList("SELECT name FROM compute_pool WHERE name = ? FOR UPDATE", name);
          List<String> tables = tablesOn(name, 5);
          if (!tables.isEmpty()) {
            throw new ApiException(
                ErrorCode.CONFLICT,
                "Compute pool "
                    + name
                    + " still has tables placed on it or running there: "
                    + String.join(", ", tables)
                    + (tables.size() == 5 ? ", ..." : "")
                    + "; move them (ALTER MATERIALIZED TABLE ... SET ('compute-pool' = ...), or ALTER"
                    + " TABLE ... SET TBLPROPERTIES for a pipeline table), or drain the pool, or"
                    + " drop them first",
                Map.of("pool", name, "tables", tables));
          }
          List<String> defaults =
              jdbc.queryForList(
                  "SELECT c.name || COALESCE('.' || d.name, '') FROM compute_pool_default f JOIN"
                      + " catalog c ON c.id = f.catalog_id LEFT JOIN catalog_database d ON d.id ="
                      + " f.database_id WHERE f.pool = ? ORDER BY 1 LIMIT 5",
                  String.class,
                  name);
          if (!defaults.isEmpty()) {
            throw new ApiException(
                ErrorCode.CONFLICT,
                "Compute pool "
                    + name
                    + " is the default pool of "
                    + String.join(", ", defaults)
                    + (defaults.size() == 5 ? ", ..." : "")
                    + "; set another default there first",
                Map.of("pool", name, "defaultOf", defaults));
          }
          jdbc.update("DELETE FROM compute_pool WHERE name = ?", name);
          audit.changed("DROP COMPUTE POOL", "compute-pool " + name, describe(pool), null);
        });
    loaded = null;
  }

  /** A table on a pool: its name (catalog.database.name), and the pool it is placed on. */
  public record Placed(String name, String placedOn, boolean pipelineTable) {}

  /** The SQL of a table's pool: its {@code 'compute-pool'}, else the default. */
  static final String PLACED_ON =
      "COALESCE(t.spec->'definition'->'options'->>'compute-pool', 'default')";

  /**
   * Up to {@code limit} tables placed on the pool, or whose job was submitted there and may still
   * run (a move under way), by name; with {@code movable}, only those a move can take (not being
   * dropped, not flows, with a definition).
   */
  public List<Placed> tablesOn(String pool, int limit, boolean movable) {
    return jdbc.query(
        "SELECT c.name || '.' || d.name || '.' || t.name AS name, "
            + PLACED_ON
            + " AS placed, COALESCE(t.spec->>'kind', '') = 'PIPELINE_TABLE' AS pipeline FROM materialized_table t JOIN catalog_database d ON d.id ="
            + " t.database_id JOIN catalog c ON c.id = d.catalog_id WHERE ("
            + PLACED_ON
            + " = ? OR (t.status->>'computePool' = ? AND t.phase NOT IN ('STOPPED', 'FAILED',"
            + " 'SUCCEEDED')))"
            + (movable
                ? " AND NOT t.deletion_requested AND t.flow_of IS NULL AND"
                    + " jsonb_typeof(t.spec->'definition') = 'object'"
                : "")
            + " ORDER BY 1 LIMIT ?",
        (rs, i) ->
            new Placed(rs.getString("name"), rs.getString("placed"), rs.getBoolean("pipeline")),
        pool,
        pool,
        limit);
  }

  /**
   * The names of up to {@code limit} tables on the pool (see {@link #tablesOn(String, int,
   * boolean)}).
   */
  public List<String> tablesOn(String pool, int limit) {
    return tablesOn(pool, limit, false).stream().map(Placed::name).toList();
  }

  @Override
  public Optional<Cluster> cluster(String pool) {
    if (pool.equals(FlinkJobs.DEFAULT_POOL)) {
      return Optional.of(configured.cluster());
    }
    return Optional.ofNullable(current().pools().get(pool)).map(Pool::cluster);
  }

  @Override
  public Optional<String> drainingTo(String pool) {
    return jdbc
        .queryForList("SELECT to_pool FROM compute_pool_drain WHERE pool = ?", String.class, pool)
        .stream()
        .findFirst();
  }

  @Override
  public List<Cluster> all() {
    List<Cluster> all = new ArrayList<>();
    all.add(configured.cluster());
    current().pools().values().forEach(p -> all.add(p.cluster()));
    return all;
  }

  private Loaded current() {
    Loaded now = loaded;
    Instant at = clock.instant();
    if (now == null || now.at().plus(CACHED).isBefore(at)) {
      Map<String, Pool> pools = new TreeMap<>();
      list().stream()
          .filter(p -> !p.name().equals(FlinkJobs.DEFAULT_POOL))
          .forEach(p -> pools.put(p.name(), p));
      now = new Loaded(at, pools);
      loaded = now;
    }
    return now;
  }

  private static String describe(Pool p) {
    return "restUrl="
        + p.restUrl()
        + " sqlGatewayUrl="
        + p.sqlGatewayUrl()
        + " parallelism="
        + (p.parallelism() == null ? "(cluster default)" : p.parallelism())
        + " maxSlots="
        + (p.maxSlots() == null ? "(cluster's)" : p.maxSlots());
  }

  private static Pool row(ResultSet rs, int i) throws SQLException {
    return new Pool(
        rs.getString("name"),
        URI.create(rs.getString("rest_url")),
        URI.create(rs.getString("sql_gateway_url")),
        (Integer) rs.getObject("parallelism"),
        (Integer) rs.getObject("max_slots"),
        false,
        rs.getString("created_by"),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")));
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  /** A pool name: a DNS label (lower-case letters, digits and '-', at most 63). */
  public static void requireName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "A compute pool name is a DNS label: 1 to 63 lower-case letters, digits and '-',"
              + " starting and ending with a letter or digit; got '"
              + name
              + "'");
    }
  }

  private static URI requireUrl(String field, URI url) {
    if (url == null
        || url.getHost() == null
        || !List.of("http", "https")
            .contains(String.valueOf(url.getScheme()).toLowerCase(Locale.ROOT))) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          field
              + " must be an absolute http or https URL; got "
              + (url == null ? "none" : "'" + url + "'"));
    }
    return url;
  }

  private static void requireAtLeast(String field, Integer value, int least) {
    if (value != null && value < least) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, field + " must be at least " + least + "; got " + value);
    }
  }
}
