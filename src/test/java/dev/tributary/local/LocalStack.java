package dev.tributary.local;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;

/**
 * Every server Tributary needs, real and on loopback: PostgreSQL, a KRaft Kafka broker, a Flink
 * MiniCluster with its SQL Gateway, and Apicurio Registry; plus the example catalog's topics and
 * their data generator. Started once per JVM and shared (by integration tests and by {@code ./mvnw
 * spring-boot:test-run}); stopped after the Spring contexts are closed.
 */
public final class LocalStack {

  private static final Logger log = LoggerFactory.getLogger(LocalStack.class);
  private static LocalStack instance;

  private final Path dir;
  // Not the common pool: on two cores it runs one task at a time.
  private final ExecutorService starters = Executors.newFixedThreadPool(4);
  private final List<AutoCloseable> stopOrder = new ArrayList<>();
  private EmbeddedPostgres postgres;
  private EmbeddedKafka kafka;
  private LocalFlink flink;
  private ApicurioRegistry registry;
  private final String adminApiKey = randomKey("trb_", 32);
  private final String secretKey = Base64.getEncoder().encodeToString(randomBytes(32));

  private LocalStack(Path dir) {
    this.dir = dir;
  }

  /** The stack of this JVM, started on first use. */
  /** The stack if this JVM started one; a service run against another process's stack has none. */
  public static synchronized Optional<LocalStack> ifStarted() {
    return Optional.ofNullable(instance);
  }

  public static synchronized LocalStack get() {
    if (instance == null) {
      // A second attempt with fresh ports and directories: Spring fails every later test class
      // of the same configuration once a context fails to load, so one unlucky start (a port
      // taken between its check and its bind) would otherwise fail the whole suite.
      LocalStack stack = null;
      for (int attempt = 1; stack == null; attempt++) {
        LocalStack starting = new LocalStack(dataDirectory());
        try {
          starting.start();
          stack = starting;
        } catch (Exception e) {
          starting.stop();
          if (attempt == 2) {
            throw new IllegalStateException("The local stack did not start: " + e.getMessage(), e);
          }
          System.err.println("The local stack did not start, trying again: " + e);
        }
      }
      // Spring runs these after it has closed every context (Quartz, Hikari first).
      SpringApplication.getShutdownHandlers().add(stack::stop);
      instance = stack;
    }
    return instance;
  }

  private static Path dataDirectory() {
    try {
      Path base = Files.createDirectories(Path.of("target", "local-stack").toAbsolutePath());
      return Files.createTempDirectory(base, "run-");
    } catch (IOException e) {
      throw new IllegalStateException("Cannot create the local stack's data directory", e);
    }
  }

  private void start() throws Exception {
    long started = System.nanoTime();
    // The registry (a separate JVM) is the slowest; everything starts side by side.
    CompletableFuture<ApicurioRegistry> registryStart =
        async(() -> ApicurioRegistry.start(Files.createDirectories(dir.resolve("registry"))));
    CompletableFuture<EmbeddedPostgres> postgresStart =
        async(
            () ->
                EmbeddedPostgres.builder()
                    .setRegisterShutdownHook(false)
                    .setDataDirectory(dir.resolve("postgres"))
                    .setCleanDataDirectory(true)
                    .start());
    CompletableFuture<EmbeddedKafka> kafkaStart =
        async(() -> EmbeddedKafka.start(Files.createDirectories(dir.resolve("kafka"))));
    CompletableFuture<LocalFlink> flinkStart =
        async(() -> startFlink(LocalFlink.chosenTopology(), dir.resolve("flink")));
    try {
      postgres = postgresStart.join();
      kafka = kafkaStart.join();
      flink = flinkStart.join();
      registry = registryStart.join();
    } finally {
      // Whatever did start must be stopped, even when another part failed.
      for (CompletableFuture<? extends AutoCloseable> f :
          List.of(registryStart, postgresStart, kafkaStart, flinkStart)) {
        AutoCloseable started0 = f.exceptionally(t -> null).join();
        if (started0 != null) {
          stopOrder.add(0, started0);
        }
      }
    }
    starters.shutdown();
    watchPostgres(dir.resolve("postgres"));
    stopOrder.add(0, ExampleDataGenerator.start(kafka.bootstrapServers()));
    // Where the README's examples read it from: ../local-stack/admin-api-key.
    Files.writeString(dir.getParent().resolve("admin-api-key"), adminApiKey + "\n");
    log.info("Local stack up in {} ms under {}", (System.nanoTime() - started) / 1_000_000, dir);
  }

  /**
   * Another Flink of this stack's topology, under a directory of its own and on ports of its own: a
   * second compute pool, sharing this stack's Kafka, registry and storage. The caller closes it.
   */
  public LocalFlink startAnotherFlink(String name) throws Exception {
    return startFlink(flink.topology(), dir.resolve(name));
  }

  /** Flink of the given topology ({@link LocalFlink}), under {@code dir}. */
  static LocalFlink startFlink(String topology, Path dir) throws Exception {
    Files.createDirectories(dir);
    return topology.equals("cluster") ? FlinkCluster.start(dir) : EmbeddedFlink.start(dir);
  }

  /**
   * PostgreSQL runs as its own processes: if this JVM dies without stopping it (SIGKILL), a
   * watchdog stops the postgres started on our data directory, and only that one.
   */
  private static void watchPostgres(Path dataDir) throws IOException {
    ChildJvm.whenThisJvmDies("true", "pkill -INT -f -- \"-D " + dataDir + "\"");
  }

  /**
   * Spring Boot settings that point the service at this stack, with its store in {@code database}.
   */
  public Map<String, Object> springProperties(String database) {
    return springProperties(database, flink);
  }

  /** The same, with the service on {@code flink} rather than this stack's own Flink. */
  public Map<String, Object> springProperties(String database, LocalFlink flink) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("spring.datasource.url", postgres.getJdbcUrl("postgres", createDatabase(database)));
    p.put("spring.datasource.username", "postgres");
    p.put("spring.datasource.password", "postgres");
    p.put("tributary.kafka.bootstrap-servers", kafka.bootstrapServers());
    p.put("tributary.schema-registry.url", registry.url().toString());
    p.put("tributary.flink.sql-gateway-url", flink.sqlGatewayUrl().toString());
    p.put("tributary.flink.rest-url", flink.restUrl().toString());
    p.put("tributary.flink.savepoint-dir", flink.savepointDir());
    p.putAll(flink.serviceSettings());
    p.put("tributary.local.examples", "true");
    p.put("tributary.security.bootstrap-admin-key", adminApiKey);
    p.put("tributary.security.secret-key", secretKey);
    // A test JVM holds several service contexts on two cores: their background checks run less
    // often than in production (the first dependency check still runs at start).
    p.put("tributary.metrics.dependency-interval", "60s");
    p.put("tributary.webhooks.poll-interval", "1s");
    // The connector policy allows the cluster's SASL listener too (the service's is plain).
    p.put("tributary.security.connectors.defaults.bootstrap-servers", kafka.saslBootstrapServers());
    // The example catalog's database owns its three topics: another database may not read them.
    String examples = "tributary.security.connectors.catalogs." + ExampleCatalog.CATALOG;
    p.put(examples + ".bootstrap-servers", kafka.saslBootstrapServers());
    p.put(
        examples + ".topics." + ExampleCatalog.DATABASE,
        String.join(",", ExampleCatalog.TABLES.stream().map(ExampleCatalog::topic).toList()));
    return p;
  }

  /** The broker's SASL/PLAIN listener, its user and that user's password. */
  public String[] kafkaSasl() {
    return new String[] {
      kafka.saslBootstrapServers(), EmbeddedKafka.SASL_USER, EmbeddedKafka.SASL_PASSWORD
    };
  }

  /** The API key, an admin of every catalog, that services on this stack create at startup. */
  public String adminApiKey() {
    return adminApiKey;
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    new SecureRandom().nextBytes(bytes);
    return bytes;
  }

  private static String randomKey(String prefix, int bytes) {
    return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes(bytes));
  }

  /**
   * The same settings as environment variables (KEY=VALUE), for a service started as its own
   * process against this stack: {@code target/local-stack.env} holds them.
   */
  public Map<String, String> environment(String database) {
    return environment(database, flink);
  }

  /** The same, with the service on {@code flink} (a {@link FlinkCluster} a fault test started). */
  public Map<String, String> environment(String database, LocalFlink flink) {
    Map<String, String> env = new LinkedHashMap<>();
    springProperties(database, flink)
        .forEach(
            (key, value) ->
                env.put(
                    key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'),
                    String.valueOf(value)));
    env.put("TRIBUTARY_LOCAL_FLINK", flink.topology());
    env.putAll(flink.processIds());
    return env;
  }

  /** Writes {@link #environment} to {@code target/local-stack.env}; returns the file. */
  public Path writeEnvironment(String database) throws IOException {
    Path file = Path.of("target", "local-stack.env").toAbsolutePath();
    Files.createDirectories(file.getParent());
    StringBuilder text = new StringBuilder();
    environment(database).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, text);
    return file;
  }

  /**
   * A PostgreSQL database of that name, created if absent: each Spring context of a test run gets
   * its own, so that one context's reconciler never works on another's tables.
   */
  public synchronized String createDatabase(String name) {
    try (var connection = postgres.getPostgresDatabase().getConnection();
        var exists = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      exists.setString(1, name);
      if (!exists.executeQuery().next()) {
        try (var create = connection.createStatement()) {
          create.execute("CREATE DATABASE \"" + name.replace("\"", "") + "\"");
        }
      }
      return name;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot create database " + name + ": " + e.getMessage(), e);
    }
  }

  /** Loses Flink's TaskManager (every running task fails) and starts a new one. */
  public void loseTaskManager() throws Exception {
    flink.loseTaskManager();
  }

  /**
   * The broker through a proxy that {@link #kafkaProxy()} can cut: a service given these bootstrap
   * servers (and the jobs it submits) lose Kafka while the rest of the stack keeps it.
   */
  public String proxiedKafkaBootstrapServers() {
    return kafka.proxiedBootstrapServers();
  }

  public TcpProxy kafkaProxy() {
    return kafka.proxy();
  }

  public String kafkaBootstrapServers() {
    return kafka.bootstrapServers();
  }

  public URI registryUrl() {
    return registry.url();
  }

  /** Which registry runs, and on which Java. */
  public String registryDescription() {
    return registry.description();
  }

  public URI flinkRestUrl() {
    return flink.restUrl();
  }

  public URI sqlGatewayUrl() {
    return flink.sqlGatewayUrl();
  }

  /** The Flink topology that runs, and each of its processes. */
  public String flinkTopology() {
    return flink.topology();
  }

  public List<String> flinkProcesses() {
    return flink.describe();
  }

  /** Each Flink process's id (none for the embedded topology), for target/local-stack.env. */
  public Map<String, String> flinkProcessIds() {
    return flink.processIds();
  }

  /** Where savepoints go: a file: URI, or s3:// on the cluster topology. */
  public String savepointDir() {
    return flink.savepointDir();
  }

  public String jdbcUrl() {
    return postgres.getJdbcUrl("postgres", "postgres");
  }

  /** Stops everything, newest first, and removes the data directory. Safe to call twice. */
  public synchronized void stop() {
    for (AutoCloseable part : stopOrder) {
      try {
        part.close();
      } catch (Exception e) {
        log.warn("Stopping {} failed: {}", part.getClass().getSimpleName(), e.toString());
      }
    }
    stopOrder.clear();
    starters.shutdownNow();
    deleteQuietly(dir);
  }

  private static void deleteQuietly(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      log.warn("Could not remove {}: {}", dir, e.toString());
    }
  }

  private interface Starter<T> {
    T start() throws Exception;
  }

  private <T> CompletableFuture<T> async(Starter<T> starter) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return starter.start();
          } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        },
        starters);
  }
}
