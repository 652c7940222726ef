package dev.tributary.port;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Each compute pool's Flink cluster and limits: what the Flink adapters route by. The pool {@value
 * FlinkJobs#DEFAULT_POOL} is the configured cluster; the others are stored.
 */
public interface ComputePoolDirectory {

  /** The pool's cluster, empty when no such pool exists. */
  Optional<Cluster> cluster(String pool);

  /** The pool a drain of {@code pool} moves its tables to, while one is under way. */
  default Optional<String> drainingTo(String pool) {
    return Optional.empty();
  }

  /** Every pool's cluster, {@value FlinkJobs#DEFAULT_POOL} first. */
  List<Cluster> all();

  /**
   * A pool's cluster: its JobManager REST URL and SQL Gateway URL, the parallelism its jobs are
   * submitted with (null: the cluster's own {@code parallelism.default}), and the most task slots
   * the jobs of Tributary may take there (null: as many as the cluster has).
   */
  record Cluster(
      String pool, URI restUrl, URI sqlGatewayUrl, Integer parallelism, Integer maxSlots) {}
}
