package dev.tributary.local;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * The local stack's Flink, one of two topologies: {@code embedded} (a MiniCluster and a SQL Gateway
 * in this JVM, savepoints on a local directory: the default, for speed) or {@code cluster}
 * (separate JobManager, TaskManager and SQL Gateway processes, checkpoints and savepoints in S3:
 * {@link FlinkCluster}). {@code TRIBUTARY_LOCAL_FLINK} or {@code -Dtributary.local.flink} chooses.
 */
public interface LocalFlink extends AutoCloseable {

  static String chosenTopology() {
    String asked =
        System.getProperty("tributary.local.flink", System.getenv("TRIBUTARY_LOCAL_FLINK"));
    if (asked == null || asked.isBlank() || asked.equals("embedded")) {
      return "embedded";
    }
    if (asked.equals("cluster")) {
      return "cluster";
    }
    throw new IllegalArgumentException(
        "TRIBUTARY_LOCAL_FLINK is '" + asked + "'; it is 'embedded' (the default) or 'cluster'");
  }

  URI restUrl();

  URI sqlGatewayUrl();

  /** Where savepoints go: a file: URI (embedded) or an s3:// one (cluster). */
  String savepointDir();

  /** Settings the service needs beyond the URLs (the object store's, for the cluster). */
  Map<String, Object> serviceSettings();

  String topology();

  /** Each process's id, by the name {@code target/local-stack.env} gives it. */
  Map<String, String> processIds();

  /** One line per process, for the banner. */
  List<String> describe();

  /** Loses a TaskManager mid-stream (its tasks fail) and brings a fresh one in its place. */
  void loseTaskManager() throws Exception;
}
