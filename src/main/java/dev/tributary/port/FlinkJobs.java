package dev.tributary.port;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Jobs on the Flink clusters, through their JobManager REST APIs. Each cluster is a compute pool; a
 * deployment with one cluster has the one pool {@value #DEFAULT_POOL}. Calls naming a job go to the
 * cluster that runs it (job ids are random 128-bit numbers, unique across clusters).
 */
public interface FlinkJobs {

  /** The pool of the configured cluster, which every deployment has. */
  String DEFAULT_POOL = "default";

  /** Every job the clusters know, in one call per cluster. */
  List<JobSummary> overview();

  /**
   * Every job of every pool that answered, and the pools that did not (by name, with why): one call
   * per pool, so that a cluster that is down holds up its own tables only. An adapter of one
   * cluster throws instead.
   */
  default Observed observe() {
    return new Observed(Map.of(DEFAULT_POOL, overview()), Map.of());
  }

  /**
   * What {@link #observe()} saw: the jobs of each pool that answered, by pool, and the pools that
   * did not.
   */
  record Observed(
      Map<String, List<JobSummary>> pools, Map<String, RemoteSystemException> unreachable) {
    public Observed {
      pools = Collections.unmodifiableMap(new LinkedHashMap<>(pools)); // in the pools' order
      unreachable = Map.copyOf(unreachable);
    }

    /** Every job of the pools that answered. */
    public List<JobSummary> jobs() {
      return pools.values().stream().flatMap(List::stream).toList();
    }
  }

  /** Every job one pool's cluster knows, in one call. */
  default List<JobSummary> overview(String pool) {
    requireDefault(pool);
    return overview();
  }

  /** The slots of a pool's cluster, and the parallelism a job of ours gets there. */
  default Slots slots(String pool) {
    throw new UnsupportedOperationException("slots of pool " + pool);
  }

  /**
   * A cluster's task slots: {@code total} and {@code available} as its JobManager counts them, and
   * the {@code parallelism} each job of ours runs with there (so the slots it takes).
   */
  record Slots(int total, int available, int parallelism) {}

  /** For an adapter that knows one cluster: any other pool is a caller's mistake. */
  static void requireDefault(String pool) {
    if (!DEFAULT_POOL.equals(pool)) {
      throw new IllegalArgumentException("No compute pool " + pool + " here, only " + DEFAULT_POOL);
    }
  }

  /** One job with the cause of its latest failure, empty if the cluster does not know it. */
  Optional<JobDetail> job(String jobId);

  /**
   * Starts a stop-with-savepoint under the caller's {@code triggerId} (32 hex digits): the
   * JobManager runs one operation per id, so sending the same trigger again, after a crash or a
   * timeout, never takes a second savepoint.
   */
  void triggerStopWithSavepoint(String jobId, String targetDirectory, String triggerId);

  SavepointStatus savepointStatus(String jobId, String triggerId);

  /** Cancels the job; a job that is unknown or already terminal counts as cancelled. */
  void cancel(String jobId);

  /**
   * The newest completed checkpoint or savepoint of the job, to restart it from; also answers for a
   * job that already ended (a crash between a stop's trigger and recording it loses nothing). Empty
   * when the JobManager does not know the job or it has none.
   */
  Optional<Completed> latestCompleted(String jobId);

  default Optional<String> latestRestorePath(String jobId) {
    return latestCompleted(jobId).map(Completed::path);
  }

  /**
   * The newest complete checkpoint ({@code chk-N} holding its {@code _metadata}) in a job's own
   * checkpoint directory, read from the storage itself: what a job lost with its JobManager (no
   * high availability) restarts from, since Flink keeps only the newest few and deletes the older
   * ones the service may have recorded. Empty when there is none or the storage cannot be reached.
   */
  default Optional<String> newestCheckpoint(String jobDirectory) {
    return Optional.empty();
  }

  /** A completed checkpoint or savepoint: where it is and when it completed. */
  record Completed(String path, Instant completedAt, boolean savepoint) {}

  /**
   * Where the Kafka sources of a job were when it took this savepoint: the next offset of each
   * partition, by topic, for the given topics. Empty when the savepoint cannot be read from here.
   */
  Optional<Map<String, Map<Integer, Long>>> sourceOffsets(String savepointPath, Set<String> topics);

  /**
   * Whether this service can read savepoints under {@code directory}: then an evolution continues
   * its sources at the exact offsets of the old job's final savepoint; else from the offsets they
   * committed, which can lag it by one checkpoint.
   */
  boolean readsSavepoints(String directory);

  /**
   * Deletes the savepoints under {@code directory} but the newest {@code keep} and {@code protect};
   * {@code keep} 0 and no protected path deletes the directory. Returns how many went, or empty
   * when that storage cannot be reached from here (then nothing is deleted).
   */
  Optional<Integer> pruneSavepoints(String directory, int keep, Set<String> protect);

  /**
   * Deletes a job's retained checkpoints: {@code directory} is the job's own directory under the
   * cluster's checkpoint storage (the parent of its {@code chk-N}). Returns how many entries went,
   * or empty when that storage cannot be reached from here (then nothing is deleted).
   */
  Optional<Integer> deleteCheckpoints(String directory);

  /** Flink job states, plus UNKNOWN for any state this version does not know. */
  enum JobState {
    INITIALIZING,
    CREATED,
    /**
     * Not one of Flink's job states: the job is RUNNING by Flink's word, but not every one of its
     * tasks runs yet (some are scheduled, deploying or initialising, restoring their state). Such a
     * job cannot take a checkpoint or a savepoint yet ("Not all required tasks are currently
     * running"), so a table whose job is here is not RUNNING either.
     */
    DEPLOYING,
    RUNNING,
    FAILING,
    FAILED,
    CANCELLING,
    CANCELED,
    FINISHED,
    RESTARTING,
    SUSPENDED,
    RECONCILING,
    UNKNOWN;

    /** Globally terminal: the job will never run again on its own. */
    public boolean terminal() {
      return this == FAILED || this == CANCELED || this == FINISHED;
    }

    public static JobState of(String name) {
      try {
        return valueOf(name);
      } catch (IllegalArgumentException | NullPointerException e) {
        return UNKNOWN;
      }
    }
  }

  /**
   * The counters a running job's operators registered in the metric group {@code group}, summed
   * over subtasks (and over vertices): {@code <subgroups>.<counter>} to its value, as the
   * JobManager's metric store last fetched them (every few seconds). Empty for a job that is not
   * running.
   */
  Map<String, Long> operatorCounters(String jobId, String group);

  /**
   * The records that reached the vertices of the job whose name contains {@code vertexName}, as its
   * vertices' {@code read-records} report them (also once the job finished); empty if the job is
   * not known.
   */
  Optional<Long> recordsReceived(String jobId, String vertexName);

  /** A job as listed by the overview. */
  record JobSummary(String id, String name, JobState state, Instant startTime) {}

  /** A job with its failure cause, if it failed. */
  record JobDetail(
      String id, String name, JobState state, Instant startTime, Optional<String> failureCause) {}

  /** Progress of a stop-with-savepoint. */
  record SavepointStatus(Phase phase, Optional<String> location, Optional<String> failureCause) {
    /** Where the savepoint operation is. */
    public enum Phase {
      IN_PROGRESS,
      COMPLETED,
      FAILED
    }
  }
}
