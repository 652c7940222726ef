package dev.tributary.plan;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.ComputePoolDirectory.Cluster;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.TableOptions;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Where a table's job runs, checked when a change is submitted: its compute pool exists, the pool's
 * budget ({@code maxSlots}, less the slots the live jobs of Tributary there take) has room for one
 * more job, and so does the database's quota there. A job takes as many slots as its parallelism.
 * The cluster's own free slots are reported, not enforced: a session cluster that starts
 * TaskManagers on demand has none free until it needs them, and a static one queues the job until a
 * slot frees; the plan says so.
 */
@Component
public class Placement {

  private final ComputePoolDirectory pools;
  private final FlinkJobs jobs;
  private final PoolQuotas quotas;
  private final PoolDefaults defaults;

  /** The parallelism a job of ours got on each pool when its room was last asked. */
  private final Map<String, Integer> parallelism = new ConcurrentHashMap<>();

  /** Without quotas or defaults (tools and tests). */
  public Placement(ComputePoolDirectory pools, FlinkJobs jobs) {
    this(pools, jobs, (table, pool, slots) -> {}, PoolDefaults.NONE);
  }

  @Autowired
  public Placement(
      ComputePoolDirectory pools, FlinkJobs jobs, PoolQuotas quotas, PoolDefaults defaults) {
    this.pools = pools;
    this.jobs = jobs;
    this.quotas = quotas;
    this.defaults = defaults;
  }

  /**
   * The definition to plan and store for a whole new definition of {@code table} (CREATE, CREATE OR
   * ALTER, a PUT): the one given when it names its pool. Otherwise an existing table stays where it
   * is (a definition applied again unchanged is unchanged), and a new one is placed on its
   * database's default pool, else its catalog's, else {@value TableOptions#DEFAULT_POOL}; the pool
   * chosen is written into its options, so that changing a default later moves nothing. A default
   * pool being drained places it on the drain's target.
   */
  public MaterializedTableDefinition placed(
      ObjectName table,
      Optional<MaterializedTableDefinition> current,
      MaterializedTableDefinition next) {
    if (next.options().containsKey(TableOptions.COMPUTE_POOL)) {
      return next;
    }
    String pool =
        current.isPresent()
            ? current.get().options().get(TableOptions.COMPUTE_POOL)
            : defaultFor(table).orElse(null);
    if (pool == null) {
      return next;
    }
    Map<String, String> options = new LinkedHashMap<>(next.options());
    options.put(TableOptions.COMPUTE_POOL, pool);
    return next.withOptions(options);
  }

  /**
   * The pool a new table of {@code table}'s database that names none is placed on: its database's
   * default, else its catalog's (the least loaded for {@code "*"}, the drain's target for a pool
   * being drained); empty for {@value TableOptions#DEFAULT_POOL}.
   */
  public Optional<String> defaultFor(ObjectName table) {
    return defaults
        .defaultPool(table.catalog(), table.database())
        .map(p -> p.equals(PoolDefaults.LEAST_LOADED) ? leastLoaded(table) : p)
        .map(p -> pools.drainingTo(p).orElse(p))
        .filter(p -> !p.equals(TableOptions.DEFAULT_POOL));
  }

  /**
   * The pool with the most room for one more job of {@code table} now: the most free slots within
   * its budget and the cluster's free slots, among the pools not being drained on which the
   * database's quota allows it. A pool that does not answer is passed over; {@value
   * TableOptions#DEFAULT_POOL} when none answers. Ties go to the first pool, {@value
   * TableOptions#DEFAULT_POOL} first.
   */
  String leastLoaded(ObjectName table) {
    String best = TableOptions.DEFAULT_POOL;
    int most = -1;
    for (Cluster cluster : pools.all()) {
      if (pools.drainingTo(cluster.pool()).isPresent()) {
        continue;
      }
      try {
        Room room = room(cluster.pool(), cluster.maxSlots() != null);
        quotas.require(table, cluster.pool(), room.needed());
        if (room.free() > most) {
          most = room.free();
          best = cluster.pool();
        }
      } catch (RemoteSystemException | ApiException e) {
        // Not answering, or the database may take no more of it: not a candidate.
      }
    }
    return best;
  }

  /**
   * A pool's room: {@code free} slots a new job of ours may take now (the cluster's free slots,
   * within the budget), {@code budget} what is left of the pool's {@code maxSlots} (null: none
   * set), {@code needed} by one job, the cluster's {@code total} and {@code available}, the slots
   * {@code used} by the {@code jobs} of Tributary there.
   */
  public record Room(
      String pool,
      int free,
      Integer budget,
      int needed,
      int total,
      int available,
      Integer maxSlots,
      int used,
      int jobs,
      String unanswered) {

    /** Whether the cluster lacks a free slot for the job now (it would wait for one). */
    public boolean waits() {
      return unanswered == null && available < needed;
    }
  }

  /**
   * Refuses, before anything is stored, a job its pool cannot take: 400 for a pool that does not
   * exist, {@link ErrorCode#POOL_FULL} (409) naming the pool, its budget left and the job's need,
   * {@code QUOTA_EXCEEDED} (409) for the database's quota. Answers the room it found.
   */
  public Room requireRoom(ObjectName table, String pool) {
    Cluster cluster = requirePool(table, pool);
    Room room;
    try {
      room = room(pool, cluster.maxSlots() != null);
    } catch (RemoteSystemException e) {
      if (!e.retryable()) {
        throw e;
      }
      // Accepted while the cluster is down, as the rest of a change is (its query is validated
      // once Flink is back); the database's quota, kept in the store, still holds.
      int needed = cluster.parallelism() == null ? 1 : cluster.parallelism();
      quotas.require(table, pool, needed);
      return new Room(pool, 0, null, needed, 0, 0, cluster.maxSlots(), 0, 0, e.getMessage());
    }
    quotas.require(table, pool, room.needed());
    if (room.budget() != null && room.budget() < room.needed()) {
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("pool", pool);
      properties.put("freeSlots", room.budget());
      properties.put("neededSlots", room.needed());
      properties.put("maxSlots", room.maxSlots());
      properties.put("usedSlots", room.used());
      properties.put("clusterSlots", room.total());
      properties.put("clusterFreeSlots", room.available());
      throw new ApiException(
          ErrorCode.POOL_FULL,
          "Compute pool "
              + pool
              + " has "
              + room.budget()
              + " free task slot"
              + (room.budget() == 1 ? "" : "s")
              + " and the job of "
              + table
              + " needs "
              + room.needed()
              + " (its maxSlots "
              + room.maxSlots()
              + ", "
              + room.used()
              + " used by Tributary; the cluster has "
              + room.available()
              + " of "
              + room.total()
              + " free)",
          properties);
    }
    return room;
  }

  /** The pool's room now: its cluster's slots and the live jobs of Tributary there. */
  public Room room(String pool) {
    return room(pool, true);
  }

  /**
   * The pool's room: the cluster's slots (one call, its parallelism cached), and, when {@code
   * countJobs}, the live jobs of Tributary there (one more; a pool without a budget needs none to
   * admit a job). A pool that does not exist or cannot be reached throws.
   */
  private Room room(String pool, boolean countJobs) {
    Cluster cluster = pools.cluster(pool).orElseThrow();
    // Read once per script (ReadOnce): the 200 CREATEs of one apply asked the JobManager 200 times
    // for the same slots. Each plan saw the cluster as it was, not as the script leaves it, before
    // too: the script's jobs are submitted after it commits.
    FlinkJobs.Slots slots = ReadOnce.read(List.of("slots", pool), () -> jobs.slots(pool));
    int needed = slots.parallelism();
    parallelism.put(pool, needed);
    int jobsThere =
        !countJobs
            ? 0
            : (int)
                ReadOnce.read(List.of("overview", pool), () -> jobs.overview(pool)).stream()
                    .filter(j -> j.name().startsWith("tributary-") && !j.state().terminal())
                    .count();
    int used = jobsThere * needed;
    Integer budget = cluster.maxSlots() == null ? null : Math.max(0, cluster.maxSlots() - used);
    int free = budget == null ? slots.available() : Math.min(slots.available(), budget);
    return new Room(
        pool,
        free,
        budget,
        needed,
        slots.total(),
        slots.available(),
        cluster.maxSlots(),
        used,
        jobsThere,
        null);
  }

  /**
   * The database's quota on the pool checked again once the table's row is written, in the writing
   * transaction (see {@link PoolQuotas#requireAtCommit}); {@code job} when the table runs a
   * continuous job, which takes the pool's parallelism in slots.
   */
  public void requireQuotaAtCommit(ObjectName table, String pool, boolean job) {
    int slots = 0;
    if (job) {
      // No remote call in a transaction: what the plan's room found, else what the pool says.
      Cluster cluster = requireKnown(table, pool);
      slots =
          cluster.parallelism() != null ? cluster.parallelism() : parallelism.getOrDefault(pool, 1);
    }
    quotas.requireAtCommit(table, pool, slots);
  }

  /**
   * A table that runs no job of its own (a FULL table, whose refreshes come and go): its pool
   * exists, and its database may hold one more table there.
   */
  public void requirePlace(ObjectName table, String pool) {
    requirePool(table, pool);
    quotas.require(table, pool, 0);
  }

  /**
   * The pool's cluster; 400 naming the pools there are when no pool has that name, 409 while the
   * pool is being drained (a drain ends when no table is left on it).
   */
  public Cluster requirePool(ObjectName table, String pool) {
    Cluster cluster = requireKnown(table, pool);
    pools
        .drainingTo(pool)
        .ifPresent(
            to -> {
              throw beingDrained(pool, to, "place " + table + " on " + to);
            });
    return cluster;
  }

  /** 409: {@code pool} is being drained into {@code to}; {@code advice} says what to do. */
  public static ApiException beingDrained(String pool, String to, String advice) {
    return new ApiException(
        ErrorCode.CONFLICT,
        "Compute pool "
            + pool
            + " is being drained into "
            + to
            + ": it takes no new table or job until the drain ends; "
            + advice,
        Map.of("pool", pool, "drainingTo", to));
  }

  /** The pool's cluster; 400 naming the pools there are when no pool has that name. */
  public Cluster requireKnown(ObjectName table, String pool) {
    return pools
        .cluster(pool)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.INVALID_OPTION_VALUE,
                    "'"
                        + TableOptions.COMPUTE_POOL
                        + "' = '"
                        + pool
                        + "' of "
                        + table
                        + " names no compute pool; the pools are "
                        + pools.all().stream().map(Cluster::pool).collect(Collectors.joining(", ")),
                    Map.of("option", TableOptions.COMPUTE_POOL, "pool", pool)));
  }
}
