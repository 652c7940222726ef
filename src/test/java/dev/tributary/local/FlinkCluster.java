package dev.tributary.local;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Flink as a team runs it: a standalone session cluster of separate JVMs (one JobManager, two
 * TaskManagers, one SQL Gateway) whose class paths hold only what a real installation's {@code
 * lib/} holds (Flink, the Kafka connector, Flink's Avro format, log4j: {@link ClusterClassPaths}),
 * with the S3 file system as a plugin under {@code plugins/} and every checkpoint and savepoint in
 * an S3 store ({@link S3Server}, its own JVM too). The service's format jar is not installed: the
 * service delivers it.
 *
 * <p>Each process has its own configuration directory ({@code config.yaml}, {@code
 * log4j.properties}) and log under the cluster's directory, and can be SIGKILLed and started again
 * on the same ports: what the fault tests do.
 *
 * <p>{@link #startHighlyAvailable} adds ZooKeeper high availability: a ZooKeeper server as its own
 * JVM ({@code org.apache.zookeeper:zookeeper}), the JobManager's job graphs and checkpoint pointers
 * in it and their files under {@code s3://tributary/ha}, so that a JobManager started after a
 * SIGKILL recovers the running jobs itself.
 */
public final class FlinkCluster implements LocalFlink {

  public static final int TASK_MANAGERS = 2;
  static final int SLOTS_PER_TASK_MANAGER = 8;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final S3Server s3;
  private final int rpcPort = FreePorts.next();
  private final int restPort = FreePorts.next();
  private final int gatewayPort = FreePorts.next();
  private final ChildJvm jobManager;
  private final List<ChildJvm> taskManagers = new ArrayList<>();
  private final ChildJvm sqlGateway;

  /** ZooKeeper, when the cluster is highly available; null otherwise. */
  private final ChildJvm zooKeeper;

  private final int zooKeeperPort = FreePorts.next();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private FlinkCluster(Path dir, S3Server s3, boolean highAvailability) throws IOException {
    this.dir = dir;
    this.s3 = s3;
    this.zooKeeper =
        highAvailability
            ? new ChildJvm(
                "zookeeper",
                ChildJvm.thisJava(),
                List.of("-Xmx128m", "-Dzookeeper.admin.enableServer=false"),
                ClusterClassPaths.read("zookeeper"),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                List.of(
                    String.valueOf(zooKeeperPort),
                    Files.createDirectories(dir.resolve("zookeeper").resolve("data")).toString()),
                Map.of(),
                dir.resolve("zookeeper"))
            : null;
    Path plugins = plugins(dir);
    String lib = ClusterClassPaths.read("lib");
    Map<String, String> env = Map.of("FLINK_PLUGINS_DIR", plugins.toString());
    List<String> flags = ChildJvm.moduleFlags();

    Path jmConf = configuration("jobmanager", Map.of());
    jobManager =
        new ChildJvm(
            "jobmanager",
            ChildJvm.thisJava(),
            jvmOptions(flags, jmConf, List.of("-Xmx768m")),
            lib,
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
            List.of("--configDir", jmConf.toString()),
            env,
            dir.resolve("jobmanager"));
    for (int i = 1; i <= TASK_MANAGERS; i++) {
      String name = "taskmanager-" + i;
      Path conf = configuration(name, Map.of("taskmanager.resource-id", name));
      // The sizes config.yaml sets, as Flink's start script would pass them to the JVM.
      List<String> memory =
          List.of(
              "-Xmx512m", "-Xms512m", "-XX:MaxDirectMemorySize=288m", "-XX:MaxMetaspaceSize=256m");
      taskManagers.add(
          new ChildJvm(
              name,
              ChildJvm.thisJava(),
              jvmOptions(flags, conf, memory),
              lib,
              "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
              List.of("--configDir", conf.toString()),
              env,
              dir.resolve(name)));
    }
    Map<String, String> gateway = new LinkedHashMap<>();
    gateway.put("execution.target", "remote");
    gateway.put("sql-gateway.endpoint.type", "rest");
    gateway.put("sql-gateway.endpoint.rest.address", "127.0.0.1");
    gateway.put("sql-gateway.endpoint.rest.bind-address", "127.0.0.1");
    gateway.put("sql-gateway.endpoint.rest.port", String.valueOf(gatewayPort));
    Path gwConf = configuration("sql-gateway", gateway);
    Map<String, String> gwEnv = new LinkedHashMap<>(env);
    gwEnv.put("FLINK_CONF_DIR", gwConf.toString());
    // A real installation's gateway: lib/ plus opt/flink-sql-gateway.
    LinkedHashSet<String> gatewayPath = new LinkedHashSet<>(List.of(lib.split(":")));
    gatewayPath.addAll(List.of(ClusterClassPaths.read("sql-gateway").split(":")));
    sqlGateway =
        new ChildJvm(
            "sql-gateway",
            ChildJvm.thisJava(),
            jvmOptions(flags, gwConf, List.of("-Xmx768m")),
            String.join(":", gatewayPath),
            "org.apache.flink.table.gateway.SqlGateway",
            List.of(),
            gwEnv,
            dir.resolve("sql-gateway"));
  }

  public static FlinkCluster start(Path dir) throws Exception {
    return start(dir, false);
  }

  /** A cluster whose JobManager keeps its jobs in ZooKeeper and S3 (see the class comment). */
  public static FlinkCluster startHighlyAvailable(Path dir) throws Exception {
    return start(dir, true);
  }

  private static FlinkCluster start(Path dir, boolean highAvailability) throws Exception {
    S3Server s3 = S3Server.start(Files.createDirectories(dir.resolve("s3")));
    FlinkCluster cluster;
    try {
      cluster = new FlinkCluster(dir, s3, highAvailability);
    } catch (IOException | RuntimeException e) {
      s3.close();
      throw e;
    }
    try {
      if (cluster.zooKeeper != null) {
        cluster.zooKeeper.start(cluster::zooKeeperReady, START_TIMEOUT);
      }
      cluster.jobManager.start(cluster::jobManagerReady, START_TIMEOUT);
      for (ChildJvm tm : cluster.taskManagers) {
        tm.start(() -> true, START_TIMEOUT);
      }
      cluster.awaitTaskManagers(TASK_MANAGERS);
      cluster.sqlGateway.start(cluster::gatewayReady, START_TIMEOUT);
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  /** plugins/s3-fs-presto/ holding the plugin jar, as in a Flink installation. */
  private static Path plugins(Path dir) throws IOException {
    Path plugins = dir.resolve("plugins");
    Path s3 = Files.createDirectories(plugins.resolve("s3-fs-presto"));
    Path jar = Path.of(ClusterClassPaths.read("s3-fs-presto").split(":")[0]);
    Path link = s3.resolve(jar.getFileName());
    if (!Files.exists(link)) {
      Files.createSymbolicLink(link, jar);
    }
    return plugins;
  }

  private Map<String, String> common() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("jobmanager.rpc.address", "127.0.0.1");
    c.put("jobmanager.rpc.port", String.valueOf(rpcPort));
    c.put("jobmanager.bind-host", "127.0.0.1");
    c.put("jobmanager.memory.process.size", "1200m");
    c.put("rest.address", "127.0.0.1");
    c.put("rest.bind-address", "127.0.0.1");
    c.put("rest.port", String.valueOf(restPort));
    c.put("taskmanager.host", "127.0.0.1");
    c.put("taskmanager.bind-host", "127.0.0.1");
    c.put("taskmanager.numberOfTaskSlots", String.valueOf(SLOTS_PER_TASK_MANAGER));
    // What Flink's start script would derive and pass (TaskManagerRunner wants them set).
    c.put("taskmanager.cpu.cores", "2");
    c.put("taskmanager.memory.framework.heap.size", "128m");
    c.put("taskmanager.memory.task.heap.size", "384m");
    c.put("taskmanager.memory.managed.size", "128m");
    c.put("taskmanager.memory.framework.off-heap.size", "128m");
    c.put("taskmanager.memory.task.off-heap.size", "32m");
    c.put("taskmanager.memory.network.min", "128m");
    c.put("taskmanager.memory.network.max", "128m");
    c.put("taskmanager.memory.jvm-metaspace.size", "256m");
    c.put("taskmanager.memory.jvm-overhead.min", "192m");
    c.put("taskmanager.memory.jvm-overhead.max", "192m");
    // A lost TaskManager is noticed in seconds, not the default 50.
    c.put("heartbeat.interval", "2000");
    c.put("heartbeat.timeout", "10000");
    c.put("execution.checkpointing.dir", checkpointDir());
    c.put("execution.checkpointing.savepoint-dir", savepointDir());
    c.putAll(s3.flinkSettings());
    if (zooKeeper != null) {
      c.put("high-availability.type", "zookeeper");
      c.put("high-availability.zookeeper.quorum", "127.0.0.1:" + zooKeeperPort);
      c.put("high-availability.storageDir", "s3://" + S3Server.BUCKET + "/ha");
      c.put("high-availability.cluster-id", "/tributary");
      // The killed JobManager's session ends (and a new leader is elected) after this, not 60 s.
      c.put("high-availability.zookeeper.client.session-timeout", "10000");
    }
    return c;
  }

  private Path configuration(String name, Map<String, String> extra) throws IOException {
    Path conf = Files.createDirectories(dir.resolve(name).resolve("conf"));
    Map<String, String> all = new LinkedHashMap<>(common());
    all.putAll(extra);
    StringBuilder yaml = new StringBuilder();
    all.forEach((k, v) -> yaml.append(k).append(": '").append(v.replace("'", "''")).append("'\n"));
    Files.writeString(conf.resolve("config.yaml"), yaml);
    Files.writeString(
        conf.resolve("log4j.properties"),
        String.join(
            "\n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.out.ref = out",
            "appender.out.name = out",
            "appender.out.type = Console",
            "appender.out.layout.type = PatternLayout",
            "appender.out.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
            "logger.kafka.name = org.apache.kafka",
            "logger.kafka.level = WARN",
            ""));
    return conf;
  }

  private static List<String> jvmOptions(List<String> flags, Path conf, List<String> memory) {
    List<String> options = new ArrayList<>(memory);
    options.add("-XX:+UseSerialGC");
    options.add("-Dlog4j.configurationFile=" + conf.resolve("log4j.properties").toUri());
    options.addAll(flags);
    return options;
  }

  private boolean jobManagerReady() {
    return get(restUrl().resolve("/overview")) != null;
  }

  /** ZooKeeper serves: it answers its {@code srvr} command (a bound port alone is not enough). */
  private boolean zooKeeperReady() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", zooKeeperPort), 500);
      socket.setSoTimeout(1000);
      socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return answer.contains("Mode:");
    } catch (IOException e) {
      return false;
    }
  }

  private boolean gatewayReady() {
    return get(sqlGatewayUrl().resolve("/v3/info")) != null;
  }

  private static final Pattern TASK_MANAGER_COUNT = Pattern.compile("\"taskmanagers\":(\\d+)");

  /** Waits until the JobManager has {@code count} TaskManagers registered. */
  public void awaitTaskManagers(int count) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (ChildJvm tm : taskManagers) {
        if (!tm.isAlive()) {
          throw new IllegalStateException(tm.name() + " exited; its log is " + tm.log());
        }
      }
      String overview = get(restUrl().resolve("/overview"));
      Matcher m = overview == null ? null : TASK_MANAGER_COUNT.matcher(overview);
      if (m != null && m.find() && Integer.parseInt(m.group(1)) == count) {
        return;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "The JobManager did not see " + count + " TaskManagers within " + START_TIMEOUT);
  }

  private String get(URI uri) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public URI restUrl() {
    return URI.create("http://127.0.0.1:" + restPort);
  }

  @Override
  public URI sqlGatewayUrl() {
    return URI.create("http://127.0.0.1:" + gatewayPort);
  }

  @Override
  public String savepointDir() {
    return "s3://" + S3Server.BUCKET + "/savepoints";
  }

  public String checkpointDir() {
    return "s3://" + S3Server.BUCKET + "/checkpoints";
  }

  @Override
  public Map<String, Object> serviceSettings() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("tributary.flink.storage.s3.endpoint", s3.endpoint().toString());
    p.put("tributary.flink.storage.s3.access-key", S3Server.ACCESS_KEY);
    p.put("tributary.flink.storage.s3.secret-key", S3Server.SECRET_KEY);
    p.put("tributary.flink.storage.s3.region", S3Server.REGION);
    p.put("tributary.flink.storage.s3.path-style-access", "true");
    p.put("tributary.flink.format-jar-dir", "s3://" + S3Server.BUCKET + "/tributary/lib");
    return p;
  }

  @Override
  public String topology() {
    return "cluster";
  }

  @Override
  public Map<String, String> processIds() {
    Map<String, String> ids = new LinkedHashMap<>();
    ids.put("FLINK_JOBMANAGER_PID", String.valueOf(jobManager.pid()));
    ids.put(
        "FLINK_TASKMANAGER_PIDS",
        String.join(",", taskManagers.stream().map(t -> String.valueOf(t.pid())).toList()));
    ids.put("FLINK_SQL_GATEWAY_PID", String.valueOf(sqlGateway.pid()));
    ids.put("S3_PID", String.valueOf(s3.process().pid()));
    if (zooKeeper != null) {
      ids.put("ZOOKEEPER_PID", String.valueOf(zooKeeper.pid()));
    }
    return ids;
  }

  @Override
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    lines.add(String.format("%-14s pid %d", "jobmanager", jobManager.pid()));
    for (ChildJvm tm : taskManagers) {
      lines.add(
          String.format("%-14s pid %d, %d slots", tm.name(), tm.pid(), SLOTS_PER_TASK_MANAGER));
    }
    lines.add(String.format("%-14s pid %d", "sql-gateway", sqlGateway.pid()));
    lines.add(
        "S3 (s3proxy)    pid "
            + s3.process().pid()
            + ", "
            + s3.endpoint()
            + " bucket "
            + S3Server.BUCKET);
    if (zooKeeper != null) {
      lines.add(
          String.format("%-14s pid %d, port %d", "zookeeper", zooKeeper.pid(), zooKeeperPort));
    }
    return lines;
  }

  /** SIGKILLs the TaskManager whose resource id is {@code name}; its slots are gone. */
  public void killTaskManager(String name) throws InterruptedException {
    taskManager(name).kill();
  }

  /** Starts a SIGKILLed TaskManager again (same configuration, same resource id). */
  public void restartTaskManager(String name) throws Exception {
    taskManager(name).start(() -> true, START_TIMEOUT);
  }

  private ChildJvm taskManager(String name) {
    return taskManagers.stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("No TaskManager " + name));
  }

  @Override
  public void loseTaskManager() throws Exception {
    // The first live one: SIGKILL, then a fresh process in its place.
    ChildJvm tm = taskManagers.stream().filter(ChildJvm::isAlive).findFirst().orElseThrow();
    tm.kill();
    tm.start(() -> true, START_TIMEOUT);
  }

  public ChildJvm jobManager() {
    return jobManager;
  }

  public ChildJvm sqlGateway() {
    return sqlGateway;
  }

  public S3Server s3() {
    return s3;
  }

  /** SIGKILLs the JobManager, starts it again and waits until both TaskManagers registered. */
  public void killAndRestartJobManager() throws Exception {
    jobManager.kill();
    restartJobManager();
    awaitTaskManagers(TASK_MANAGERS);
  }

  /** Starts the SIGKILLed JobManager again, and waits for it to serve REST. */
  public void restartJobManager() throws Exception {
    jobManager.start(this::jobManagerReady, START_TIMEOUT);
  }

  public void restartSqlGateway() throws Exception {
    sqlGateway.close();
    sqlGateway.start(this::gatewayReady, START_TIMEOUT);
  }

  /** The resource id of the TaskManager that runs the job's first task ("taskmanager-1"). */
  public String taskManagerOf(String jobId) {
    JsonNode job = JsonMapper.shared().readTree(get(restUrl().resolve("/jobs/" + jobId)));
    String vertex = job.path("vertices").path(0).path("id").asString();
    JsonNode tms =
        JsonMapper.shared()
            .readTree(
                get(restUrl().resolve("/jobs/" + jobId + "/vertices/" + vertex + "/taskmanagers")));
    return tms.path("taskmanagers").path(0).path("taskmanager-id").asString();
  }

  /** The job's state as the JobManager reports it ("" when it does not know the job). */
  public String jobState(String jobId) {
    try {
      return JsonMapper.shared()
          .readTree(get(restUrl().resolve("/jobs/" + jobId)))
          .path("state")
          .asString("");
    } catch (RuntimeException e) {
      return "";
    }
  }

  /** The ids of the jobs the JobManager runs now whose name starts with {@code prefix}. */
  public List<String> runningJobs(String prefix) {
    JsonNode jobs = JsonMapper.shared().readTree(get(restUrl().resolve("/jobs/overview")));
    return jobs.path("jobs")
        .valueStream()
        .filter(j -> j.path("state").asString().equals("RUNNING"))
        .filter(j -> j.path("name").asString().startsWith(prefix))
        .map(j -> j.path("jid").asString())
        .toList();
  }

  /** The store's files on disk, a folder per bucket: what a test reads to see what S3 holds. */
  public Path s3Data() {
    return s3.data();
  }

  @Override
  public void close() throws Exception {
    sqlGateway.close();
    for (ChildJvm tm : taskManagers) {
      tm.close();
    }
    jobManager.close();
    if (zooKeeper != null) {
      zooKeeper.close();
    }
    s3.close();
  }
}
