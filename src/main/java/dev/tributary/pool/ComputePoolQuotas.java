package dev.tributary.pool;

import dev.tributary.plan.PoolQuotas;
import dev.tributary.port.ComputePoolDirectory.Cluster;
import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Quotas of a database on compute pools: how many tables it may place on a pool, and how many of
 * the pool's task slots their jobs may take. A table takes a slot per unit of its pool's job
 * parallelism while it is meant to run a continuous job (not suspended, not FULL, not failed).
 * Checked by the planner when a change is submitted, from the store as it is then.
 */
@Service
public class ComputePoolQuotas implements PoolQuotas {

  /**
   * The SQL of a table row meant to run a continuous job now: not suspended, not FULL, not failed
   * or done. What a quota's and a pool budget's slots are counted by at commit.
   */
  static final String MEANT_TO_RUN =
      "t.phase NOT IN ('STOPPED', 'FAILED', 'SUCCEEDED') AND NOT (t.spec->>'stopped')::boolean"
          + " AND COALESCE(t.spec->'definition'->>'refreshMode', 'AUTO') <> 'FULL'";

  /** A database's quota on a pool; null limits are not limited. */
  public record Quota(String pool, Integer maxTables, Integer maxSlots) {}

  /** What the database holds on the pool, its table excepted. */
  record Use(int tables, int running) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final ComputePools pools;
  private final AuditLog audit;

  ComputePoolQuotas(
      JdbcTemplate jdbc, TransactionTemplate transactions, ComputePools pools, AuditLog audit) {
    this.jdbc = jdbc;
    this.transactions = transactions;
    this.pools = pools;
    this.audit = audit;
  }

  public List<Quota> list(String catalog, String database) {
    return jdbc.query(
        "SELECT q.pool, q.max_tables, q.max_slots FROM database_pool_quota q JOIN"
            + " catalog_database d ON d.id = q.database_id JOIN catalog c ON c.id = d.catalog_id"
            + " WHERE c.name = ? AND d.name = ? ORDER BY q.pool",
        (rs, i) ->
            new Quota(
                rs.getString("pool"),
                (Integer) rs.getObject("max_tables"),
                (Integer) rs.getObject("max_slots")),
        catalog,
        database);
  }

  /** Sets the database's quota on the pool; the database and the pool must exist. */
  public Quota put(
      String catalog, String database, String pool, Integer maxTables, Integer maxSlots) {
    pools.get(pool);
    for (Map.Entry<String, Integer> limit :
        Map.of("maxTables", nullAsZero(maxTables), "maxSlots", nullAsZero(maxSlots)).entrySet()) {
      if (limit.getValue() < 0) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            limit.getKey() + " must be at least 0; got " + limit.getValue());
      }
    }
    Long id = databaseId(catalog, database);
    String before = describe(list(catalog, database), pool);
    transactions.executeWithoutResult(
        tx -> {
          jdbc.update(
              "INSERT INTO database_pool_quota (database_id, pool, max_tables, max_slots,"
                  + " updated_by) VALUES (?, ?, ?, ?, ?) ON CONFLICT (database_id, pool) DO UPDATE"
                  + " SET max_tables = EXCLUDED.max_tables, max_slots = EXCLUDED.max_slots,"
                  + " updated_by = EXCLUDED.updated_by, updated_at = now()",
              id,
              pool,
              maxTables,
              maxSlots,
              Access.caller().name());
          audit.changed(
              "SET QUOTA",
              catalog + "." + database + " on compute-pool " + pool,
              before,
              "maxTables=" + maxTables + " maxSlots=" + maxSlots);
        });
    return new Quota(pool, maxTables, maxSlots);
  }

  public void delete(String catalog, String database, String pool) {
    Long id = databaseId(catalog, database);
    String before = describe(list(catalog, database), pool);
    if (before == null) {
      throw new ApiException(
          ErrorCode.NOT_FOUND, catalog + "." + database + " has no quota on compute pool " + pool);
    }
    transactions.executeWithoutResult(
        tx -> {
          jdbc.update(
              "DELETE FROM database_pool_quota WHERE database_id = ? AND pool = ?", id, pool);
          audit.changed(
              "DROP QUOTA", catalog + "." + database + " on compute-pool " + pool, before, null);
        });
  }

  @Override
  public void require(ObjectName table, String pool, int slots) {
    List<Quota> quotas =
        list(table.catalog(), table.database()).stream()
            .filter(q -> q.pool().equals(pool))
            .toList();
    if (quotas.isEmpty()) {
      return;
    }
    Quota quota = quotas.get(0);
    Use use = use(table, pool);
    if (quota.maxTables() != null && use.tables() + 1 > quota.maxTables()) {
      throw exceeded(table, pool, "maxTables", quota.maxTables(), use.tables(), 1, "tables");
    }
    if (quota.maxSlots() != null && slots > 0) {
      int used = use.running() * slots; // every job of the pool takes as many as this one
      if (used + slots > quota.maxSlots()) {
        throw exceeded(table, pool, "maxSlots", quota.maxSlots(), used, slots, "task slots");
      }
    }
  }

  @Override
  public void requireAtCommit(ObjectName table, String pool, int slots) {
    boolean quota =
        list(table.catalog(), table.database()).stream().anyMatch(q -> q.pool().equals(pool));
    Integer maxSlots = slots == 0 ? null : pools.cluster(pool).map(Cluster::maxSlots).orElse(null);
    if (!quota && maxSlots == null) {
      return; // nothing to count, nothing to serialise
    }
    // Held until the caller's transaction ends: a second submit on the pool waits here, then
    // counts the first one's committed row (each statement reads what was committed before it).
    jdbc.queryForList("SELECT pg_advisory_xact_lock(hashtext(?))", "compute-pool:" + pool);
    if (quota) {
      require(table, pool, slots);
    }
    if (maxSlots != null) {
      int used = jobsOn(pool, table) * slots; // every job of ours there takes as many
      if (used + slots > maxSlots) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("pool", pool);
        properties.put("freeSlots", Math.max(0, maxSlots - used));
        properties.put("neededSlots", slots);
        properties.put("maxSlots", maxSlots);
        properties.put("usedSlots", used);
        throw new ApiException(
            ErrorCode.POOL_FULL,
            "Compute pool "
                + pool
                + " has "
                + Math.max(0, maxSlots - used)
                + " free task slots for "
                + table
                + ", which needs "
                + slots
                + " (its maxSlots "
                + maxSlots
                + ", "
                + used
                + " taken by the tables of Tributary placed there and meant to run)",
            properties);
      }
    }
  }

  /**
   * Tables and flows of every database placed on the pool and meant to run a continuous job (not
   * stopped, not FULL, not failed or done), {@code except} one.
   */
  private int jobsOn(String pool, ObjectName except) {
    return jdbc.queryForObject(
        "SELECT count(*) FROM materialized_table t JOIN catalog_database d ON d.id ="
            + " t.database_id JOIN catalog c ON c.id = d.catalog_id WHERE NOT (c.name = ? AND"
            + " d.name = ? AND t.name = ? AND t.flow_of IS NULL) AND NOT t.deletion_requested"
            + " AND jsonb_typeof(t.spec->'definition') = 'object' AND"
            + " COALESCE(t.spec->>'kind', '') <> 'PIPELINE_TABLE' AND "
            + MEANT_TO_RUN
            + " AND "
            + ComputePools.PLACED_ON
            + " = ?",
        Integer.class,
        except.catalog(),
        except.database(),
        except.name(),
        pool);
  }

  /** The database's tables on the pool (placed there), and those meant to run a job, but one. */
  private Use use(ObjectName table, String pool) {
    return jdbc.queryForObject(
        "SELECT count(*) AS tables, count(*) FILTER (WHERE "
            + MEANT_TO_RUN
            + ") AS running FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id"
            + " JOIN catalog c ON c.id = d.catalog_id WHERE c.name = ? AND d.name = ? AND t.name"
            + " <> ? AND t.flow_of IS NULL AND NOT t.deletion_requested AND"
            + " jsonb_typeof(t.spec->'definition') = 'object' AND"
            + " "
            + ComputePools.PLACED_ON
            + " = ?",
        (rs, i) -> new Use(rs.getInt("tables"), rs.getInt("running")),
        table.catalog(),
        table.database(),
        table.name(),
        pool);
  }

  private static ApiException exceeded(
      ObjectName table,
      String pool,
      String quota,
      int limit,
      int used,
      int requested,
      String what) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("pool", pool);
    properties.put("database", table.catalog() + "." + table.database());
    properties.put("quota", quota);
    properties.put("limit", limit);
    properties.put("used", used);
    properties.put("requested", requested);
    return new ApiException(
        ErrorCode.QUOTA_EXCEEDED,
        "Database "
            + table.catalog()
            + "."
            + table.database()
            + " may hold "
            + limit
            + " "
            + (limit == 1 ? what.substring(0, what.length() - 1) : what)
            + " on compute pool "
            + pool
            + " ("
            + quota
            + "); it holds "
            + used
            + " and "
            + table.name()
            + " asks for "
            + requested
            + " more",
        properties);
  }

  private Long databaseId(String catalog, String database) {
    List<Long> ids =
        jdbc.queryForList(
            "SELECT d.id FROM catalog_database d JOIN catalog c ON c.id = d.catalog_id"
                + " WHERE c.name = ? AND d.name = ?",
            Long.class,
            catalog,
            database);
    if (ids.isEmpty()) {
      throw new ApiException(
          ErrorCode.NOT_FOUND, "Database " + catalog + "." + database + " not found");
    }
    return ids.get(0);
  }

  private static String describe(List<Quota> quotas, String pool) {
    return quotas.stream()
        .filter(q -> q.pool().equals(pool))
        .map(q -> "maxTables=" + q.maxTables() + " maxSlots=" + q.maxSlots())
        .findFirst()
        .orElse(null);
  }

  private static int nullAsZero(Integer value) {
    return value == null ? 0 : value;
  }
}
