package dev.tributary.adapter.flink;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.RemoteSystemException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The JobManagers of every compute pool as one {@link FlinkJobs}: the overview is every pool's (a
 * pool that cannot be reached fails it, so that no pass takes its jobs for gone and submits them
 * again; {@link #observe} names that pool instead, for the reconciler to hold up its tables only),
 * a call naming a job goes to the pool that runs it, and a call naming a directory goes to the
 * configured cluster's adapter, since every pool keeps its state in the same storage.
 */
public class PooledFlinkJobs implements FlinkJobs {

  private final PoolClients pools;

  PooledFlinkJobs(PoolClients pools) {
    this.pools = pools;
  }

  @Override
  public List<JobSummary> overview() {
    List<JobSummary> all = new ArrayList<>();
    for (PoolClients.Clients c : pools.all()) {
      all.addAll(overview(c));
    }
    return all;
  }

  @Override
  public Observed observe() {
    Map<String, List<JobSummary>> answered = new LinkedHashMap<>();
    Map<String, RemoteSystemException> unreachable = new LinkedHashMap<>();
    for (PoolClients.Clients c : pools.all()) {
      String pool = c.cluster().pool();
      try {
        answered.put(pool, overview(c));
      } catch (RemoteSystemException e) {
        unreachable.put(
            pool,
            new DependencyUnavailableException(
                e.system(),
                "Compute pool " + pool + " (" + c.cluster().restUrl() + "): " + e.getMessage(),
                e));
      }
    }
    return new Observed(answered, unreachable);
  }

  @Override
  public List<JobSummary> overview(String pool) {
    return overview(pools.of(pool));
  }

  private List<JobSummary> overview(PoolClients.Clients c) {
    List<JobSummary> jobs = c.jobs().overview();
    pools.listed(c.cluster().pool(), jobs);
    return jobs;
  }

  @Override
  public Slots slots(String pool) {
    PoolClients.Clients c = pools.of(pool);
    Slots cluster = c.jobs().slots();
    Integer parallelism = c.cluster().parallelism();
    return parallelism == null
        ? cluster
        : new Slots(cluster.total(), cluster.available(), parallelism);
  }

  @Override
  public Optional<JobDetail> job(String jobId) {
    return pools.ofJob(jobId).jobs().job(jobId);
  }

  @Override
  public void triggerStopWithSavepoint(String jobId, String targetDirectory, String triggerId) {
    pools.ofJob(jobId).jobs().triggerStopWithSavepoint(jobId, targetDirectory, triggerId);
  }

  @Override
  public SavepointStatus savepointStatus(String jobId, String triggerId) {
    return pools.ofJob(jobId).jobs().savepointStatus(jobId, triggerId);
  }

  @Override
  public void cancel(String jobId) {
    pools.ofJob(jobId).jobs().cancel(jobId);
  }

  @Override
  public Optional<Completed> latestCompleted(String jobId) {
    return pools.ofJob(jobId).jobs().latestCompleted(jobId);
  }

  @Override
  public Map<String, Long> operatorCounters(String jobId, String group) {
    return pools.ofJob(jobId).jobs().operatorCounters(jobId, group);
  }

  @Override
  public Optional<Long> recordsReceived(String jobId, String vertexName) {
    return pools.ofJob(jobId).jobs().recordsReceived(jobId, vertexName);
  }

  @Override
  public Optional<String> newestCheckpoint(String jobDirectory) {
    return pools.configured().jobs().newestCheckpoint(jobDirectory);
  }

  @Override
  public Optional<Map<String, Map<Integer, Long>>> sourceOffsets(
      String savepointPath, Set<String> topics) {
    return pools.configured().jobs().sourceOffsets(savepointPath, topics);
  }

  @Override
  public boolean readsSavepoints(String directory) {
    return pools.configured().jobs().readsSavepoints(directory);
  }

  @Override
  public Optional<Integer> pruneSavepoints(String directory, int keep, Set<String> protect) {
    return pools.configured().jobs().pruneSavepoints(directory, keep, protect);
  }

  @Override
  public Optional<Integer> deleteCheckpoints(String directory) {
    return pools.configured().jobs().deleteCheckpoints(directory);
  }
}
