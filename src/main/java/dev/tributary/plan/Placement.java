package dev.tributary.plan;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.ComputePoolDirectory.Cluster;
import dev.tributary.port.FlinkJobs;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.TableOptions;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Where a table's job runs, checked when a change is submitted: its compute pool exists, and has
 * room for one more job. Room is the smaller of the cluster's free task slots (its JobManager's
 * count) and what the pool's {@code maxSlots} leaves once the live jobs of Tributary there are
 * counted; a job takes as many slots as its parallelism.
 */
@Component
public class Placement {

  private final ComputePoolDirectory pools;
  private final FlinkJobs jobs;
  private final PoolQuotas quotas;

  /** Without quotas (tools and tests). */
  public Placement(ComputePoolDirectory pools, FlinkJobs jobs) {
    this(pools, jobs, (table, pool, slots) -> {});
  }

  @Autowired
  public Placement(ComputePoolDirectory pools, FlinkJobs jobs, PoolQuotas quotas) {
    this.pools = pools;
    this.jobs = jobs;
    this.quotas = quotas;
  }

  /**
   * A pool's room: {@code free} slots a new job of ours may take, {@code needed} by one, the
   * cluster's {@code total} and {@code available}, the pool's {@code maxSlots}, the slots {@code
   * used} by the {@code jobs} of Tributary there.
   */
  public record Room(
      String pool,
      int free,
      int needed,
      int total,
      int available,
      Integer maxSlots,
      int used,
      int jobs) {}

  /**
   * Refuses, before anything is stored, a job its pool cannot take: 400 for a pool that does not
   * exist, {@link ErrorCode#POOL_FULL} (409) naming the pool, its free slots and the job's need.
   */
  public Room requireRoom(ObjectName table, String pool) {
    requirePool(table, pool);
    Room room = room(pool);
    quotas.require(table, pool, room.needed());
    if (room.free() < room.needed()) {
      Map<String, Object> properties = new LinkedHashMap<>();
      properties.put("pool", pool);
      properties.put("freeSlots", room.free());
      properties.put("neededSlots", room.needed());
      properties.put("clusterSlots", room.total());
      properties.put("clusterFreeSlots", room.available());
      if (room.maxSlots() != null) {
        properties.put("maxSlots", room.maxSlots());
        properties.put("usedSlots", room.used());
      }
      throw new ApiException(
          ErrorCode.POOL_FULL,
          "Compute pool "
              + pool
              + " has "
              + room.free()
              + " free task slot"
              + (room.free() == 1 ? "" : "s")
              + " and the job of "
              + table
              + " needs "
              + room.needed()
              + " ("
              + (room.maxSlots() != null
                  ? "its maxSlots " + room.maxSlots() + ", " + room.used() + " used by Tributary; "
                  : "")
              + "the cluster has "
              + room.available()
              + " of "
              + room.total()
              + " free)",
          properties);
    }
    return room;
  }

  /**
   * The pool's room now: its cluster's slots (one call), and with a {@code maxSlots} the live jobs
   * of Tributary there (one more). A pool that does not exist or cannot be reached throws.
   */
  public Room room(String pool) {
    Cluster cluster = pools.cluster(pool).orElseThrow();
    FlinkJobs.Slots slots = jobs.slots(pool);
    int needed = slots.parallelism();
    int jobsThere =
        (int)
            jobs.overview(pool).stream()
                .filter(j -> j.name().startsWith("tributary-") && !j.state().terminal())
                .count();
    int used = jobsThere * needed;
    int free =
        cluster.maxSlots() == null
            ? slots.available()
            : Math.min(slots.available(), Math.max(0, cluster.maxSlots() - used));
    return new Room(
        pool, free, needed, slots.total(), slots.available(), cluster.maxSlots(), used, jobsThere);
  }

  /**
   * A table that runs no job of its own (a FULL table, whose refreshes come and go): its pool
   * exists, and its database may hold one more table there.
   */
  public void requirePlace(ObjectName table, String pool) {
    requirePool(table, pool);
    quotas.require(table, pool, 0);
  }

  /** The pool's cluster; 400 naming the pools there are when no pool has that name. */
  public Cluster requirePool(ObjectName table, String pool) {
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
