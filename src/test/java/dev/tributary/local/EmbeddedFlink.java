package dev.tributary.local;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.table.gateway.SqlGateway;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;

/**
 * A Flink MiniCluster with its REST endpoint (the JobManager API) and a SQL Gateway (REST v3) that
 * submits to it, both on loopback. The Kafka SQL connector is on this JVM's classpath.
 */
final class EmbeddedFlink implements LocalFlink {

  /**
   * Task slots: 32, or {@code -Dtributary.local.flink.slots} (the bench profile gives it room for
   * 200 tables' jobs at once). Each slot keeps the managed memory a MiniCluster gives 32 slots by
   * default (128 MB), 4 MB, so batch jobs get the same per slot whatever the count.
   */
  private static final int SLOTS = Integer.getInteger("tributary.local.flink.slots", 32);

  private static final MemorySize MANAGED_PER_SLOT = MemorySize.ofMebiBytes(4);

  private final MiniCluster cluster;
  private final SqlGateway gateway;
  private final URI restUrl;
  private final URI sqlGatewayUrl;
  private final String savepointDir;

  private EmbeddedFlink(
      MiniCluster cluster,
      SqlGateway gateway,
      URI restUrl,
      URI sqlGatewayUrl,
      String savepointDir) {
    this.cluster = cluster;
    this.gateway = gateway;
    this.restUrl = restUrl;
    this.sqlGatewayUrl = sqlGatewayUrl;
    this.savepointDir = savepointDir;
  }

  static EmbeddedFlink start(Path dir) throws Exception {
    String checkpoints = dir.resolve("checkpoints").toUri().toString();
    String savepoints = dir.resolve("savepoints").toUri().toString();

    Configuration clusterConfig = new Configuration();
    clusterConfig.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    clusterConfig.set(RestOptions.ADDRESS, "127.0.0.1");
    clusterConfig.set(RestOptions.BIND_PORT, "0");
    clusterConfig.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints);
    clusterConfig.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepoints);
    // Many small jobs at once (every test class's tables): give them network buffers enough.
    clusterConfig.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(256));
    clusterConfig.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(256));
    clusterConfig.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MANAGED_PER_SLOT.multiply(SLOTS));
    MiniCluster cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConfig)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(SLOTS)
                .withRandomPorts()
                .build());
    cluster.start();
    URI restUrl = cluster.getRestAddress().get();

    // DefaultContext.load() wants FLINK_CONF_DIR; build the context from this configuration.
    int gatewayPort = FreePorts.next();
    Configuration gatewayConfig = new Configuration();
    gatewayConfig.set(DeploymentOptions.TARGET, "remote");
    gatewayConfig.set(RestOptions.ADDRESS, restUrl.getHost());
    gatewayConfig.set(RestOptions.PORT, restUrl.getPort());
    gatewayConfig.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints);
    gatewayConfig.set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepoints);
    gatewayConfig.setString("sql-gateway.endpoint.type", "rest");
    gatewayConfig.setString("sql-gateway.endpoint.rest.address", "127.0.0.1");
    gatewayConfig.setString("sql-gateway.endpoint.rest.bind-address", "127.0.0.1");
    gatewayConfig.setString("sql-gateway.endpoint.rest.port", String.valueOf(gatewayPort));
    SqlGateway gateway =
        new SqlGateway(
            gatewayConfig, SessionManager.create(new DefaultContext(gatewayConfig, List.of())));
    gateway.start();
    return new EmbeddedFlink(
        cluster,
        gateway,
        URI.create("http://127.0.0.1:" + restUrl.getPort()),
        URI.create("http://127.0.0.1:" + gatewayPort),
        savepoints);
  }

  @Override
  public URI restUrl() {
    return restUrl;
  }

  /** The index of the running TaskManager; terminated ones keep their place in the list. */
  private int taskManager;

  /**
   * Terminates the TaskManager, as a lost machine would be (its tasks fail, the JobManager keeps
   * the jobs' checkpoints), and starts a fresh one in its place.
   */
  @Override
  public synchronized void loseTaskManager() throws Exception {
    cluster.terminateTaskManager(taskManager).get(60, TimeUnit.SECONDS);
    cluster.startTaskManager();
    taskManager++;
  }

  @Override
  public URI sqlGatewayUrl() {
    return sqlGatewayUrl;
  }

  @Override
  public String savepointDir() {
    return savepointDir;
  }

  @Override
  public Map<String, Object> serviceSettings() {
    return Map.of();
  }

  @Override
  public String topology() {
    return "embedded";
  }

  @Override
  public Map<String, String> processIds() {
    return Map.of();
  }

  @Override
  public List<String> describe() {
    return List.of("a MiniCluster in this JVM, savepoints on the local file system");
  }

  @Override
  public void close() throws Exception {
    gateway.stop();
    cluster.close();
  }
}
