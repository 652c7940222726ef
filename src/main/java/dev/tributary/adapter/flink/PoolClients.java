package dev.tributary.adapter.flink;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.ComputePoolDirectory.Cluster;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkSql.Session;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.system.HttpClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager and SQL Gateway clients of every compute pool, and which pool each job and session
 * of ours lives in, so that {@link PooledFlinkJobs} and {@link PooledFlinkSql} send a call naming a
 * job or a session to the cluster that has it. The configured cluster is the pool {@value
 * FlinkJobs#DEFAULT_POOL}; the clients of the others are made when first asked for and again when
 * their endpoints change.
 *
 * <p>A job's pool is learned from each pool's job overview and from the statement that submitted
 * it; a job id neither has named is asked of each pool in turn (a pass that restarted before any
 * overview). A session's pool is the one it was opened on.
 */
final class PoolClients {

  private static final Logger log = LoggerFactory.getLogger(PoolClients.class);

  /** One pool's clients, made for its endpoints. */
  record Clients(Cluster cluster, RestFlinkJobs jobs, GatewayFlinkSql sql) {}

  private final ComputePoolDirectory directory;
  private final Clients configured;
  private final Function<Cluster, Clients> make;
  private final Map<String, Clients> made = new ConcurrentHashMap<>();
  private final Map<String, String> jobPools = new ConcurrentHashMap<>();
  private final Map<String, String> sessionPools = new ConcurrentHashMap<>();

  PoolClients(ComputePoolDirectory directory, Clients configured, Function<Cluster, Clients> make) {
    this.directory = directory;
    this.configured = configured;
    this.make = make;
  }

  /** Clients of a pool's cluster with the service's request timeout and storage. */
  static Function<Cluster, Clients> maker(
      Duration requestTimeout, Duration statementTimeout, StateStorage storage, FormatJar jar) {
    return e ->
        new Clients(
            e,
            new RestFlinkJobs(HttpClients.restClient(e.restUrl(), requestTimeout).build(), storage),
            new GatewayFlinkSql(
                HttpClients.restClient(e.sqlGatewayUrl(), requestTimeout).build(),
                statementTimeout,
                jar));
  }

  Clients configured() {
    return configured;
  }

  /** The clients of {@code pool}; a pool that does not exist (any more) is a dependency error. */
  Clients of(String pool) {
    if (FlinkJobs.DEFAULT_POOL.equals(pool)) {
      return configured;
    }
    Cluster cluster =
        directory
            .cluster(pool)
            .orElseThrow(
                () ->
                    new DependencyUnavailableException(
                        ExternalSystem.FLINK, "Compute pool " + pool + " does not exist", null));
    return made.compute(
        pool,
        (name, known) ->
            known != null && known.cluster().equals(cluster) ? known : make.apply(cluster));
  }

  /** Every pool's clients, {@value FlinkJobs#DEFAULT_POOL} first. */
  List<Clients> all() {
    List<Clients> all = new ArrayList<>();
    all.add(configured);
    for (Cluster e : directory.all()) {
      if (!e.pool().equals(FlinkJobs.DEFAULT_POOL)) {
        all.add(of(e.pool()));
      }
    }
    return all;
  }

  /** Records the jobs a pool's overview listed, forgetting the ones it no longer has. */
  void listed(String pool, List<JobSummary> jobs) {
    jobPools.values().removeIf(pool::equals);
    jobs.forEach(j -> jobPools.put(j.id(), pool));
  }

  void submitted(String jobId, String pool) {
    jobPools.put(jobId, pool);
  }

  /** The clients of the cluster that runs {@code jobId}: known, else the first pool that has it. */
  Clients ofJob(String jobId) {
    String pool = jobPools.get(jobId);
    if (pool != null) {
      return of(pool);
    }
    RemoteSystemException unreachable = null;
    for (Clients c : all()) {
      try {
        Optional<FlinkJobs.JobDetail> found = c.jobs().job(jobId);
        if (found.isPresent()) {
          jobPools.put(jobId, c.cluster().pool());
          return c;
        }
      } catch (RemoteSystemException e) {
        // A job never listed cannot be of a pool that is down for a pass that goes ahead: the
        // worker holds up the passes of the tables placed or running there.
        unreachable = e;
      }
    }
    if (unreachable != null) {
      log.debug(
          "Job {} is in no pool that answered; one did not: {}", jobId, unreachable.getMessage());
    }
    return configured; // no pool knows it: the configured cluster answers "unknown"
  }

  void opened(Session session, String pool) {
    if (!FlinkJobs.DEFAULT_POOL.equals(pool)) {
      sessionPools.put(session.handle(), pool);
    }
  }

  String poolOf(Session session) {
    return sessionPools.getOrDefault(session.handle(), FlinkJobs.DEFAULT_POOL);
  }

  void closed(Session session) {
    sessionPools.remove(session.handle());
  }
}
