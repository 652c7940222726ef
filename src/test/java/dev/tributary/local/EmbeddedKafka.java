package dev.tributary.local;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/** A real single-node Kafka (KRaft, broker and controller in one) inside this JVM. */
final class EmbeddedKafka implements AutoCloseable {

  private final KafkaRaftServer server;
  private final String bootstrapServers;
  private final TcpProxy proxy;
  private final String saslBootstrapServers;

  /** The one user of the SASL/PLAIN listener, and its password. */
  static final String SASL_USER = "tributary-reader";

  static final String SASL_PASSWORD = "local-" + Long.toHexString(new SecureRandom().nextLong());

  private EmbeddedKafka(
      KafkaRaftServer server, String bootstrapServers, TcpProxy proxy, String saslServers) {
    this.saslBootstrapServers = saslServers;
    this.server = server;
    this.bootstrapServers = bootstrapServers;
    this.proxy = proxy;
  }

  static EmbeddedKafka start(Path dir) throws IOException {
    int brokerPort = FreePorts.next();
    int controllerPort = FreePorts.next();
    // A second listener that advertises a proxy in front of it: clients that bootstrap through
    // the proxy keep talking through it, so a test can take Kafka away from them alone.
    int proxiedPort = FreePorts.next();
    TcpProxy proxy = new TcpProxy(FreePorts.next(), proxiedPort);
    // And one that needs a user and password (SASL/PLAIN), for source tables that authenticate.
    int saslPort = FreePorts.next();
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
    props.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:"
            + brokerPort
            + ",CONTROLLER://127.0.0.1:"
            + controllerPort
            + ",PROXIED://127.0.0.1:"
            + proxiedPort
            + ",SASL://127.0.0.1:"
            + saslPort);
    props.put(
        "advertised.listeners",
        "PLAINTEXT://127.0.0.1:"
            + brokerPort
            + ",PROXIED://127.0.0.1:"
            + proxy.port()
            + ",SASL://127.0.0.1:"
            + saslPort);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT,SASL:SASL_PLAINTEXT");
    props.put("listener.name.sasl.sasl.enabled.mechanisms", "PLAIN");
    props.put(
        "listener.name.sasl.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + SASL_USER
            + "=\""
            + SASL_PASSWORD
            + "\";");
    props.put("log.dirs", logs.toString());
    // One node: every replication factor and minimum ISR is 1.
    props.put("offsets.topic.replication.factor", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("default.replication.factor", "1");
    props.put("min.insync.replicas", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    // Flink's exactly-once Kafka sink opens transactions of up to an hour.
    props.put("transaction.max.timeout.ms", "3600000");

    Path config = dir.resolve("server.properties");
    try (var out = Files.newOutputStream(config)) {
      props.store(out, "Tributary local stack");
    }
    format(config);

    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
    server.startup();
    return new EmbeddedKafka(server, "127.0.0.1:" + brokerPort, proxy, "127.0.0.1:" + saslPort);
  }

  /** kafka-storage format --standalone, as a single-node KRaft quorum needs. */
  private static void format(Path config) {
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    String[] args = {
      "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--standalone"
    };
    int exit = StorageTool.execute(args, new PrintStream(output, true, StandardCharsets.UTF_8));
    if (exit != 0) {
      throw new IllegalStateException(
          "Formatting Kafka storage failed: " + output.toString(StandardCharsets.UTF_8));
    }
  }

  String bootstrapServers() {
    return bootstrapServers;
  }

  /** The same broker through a proxy that a test can cut: bootstrap servers and the proxy. */
  /** The listener that needs {@link #SASL_USER} and {@link #SASL_PASSWORD} (SASL/PLAIN). */
  String saslBootstrapServers() {
    return saslBootstrapServers;
  }

  String proxiedBootstrapServers() {
    return "127.0.0.1:" + proxy.port();
  }

  TcpProxy proxy() {
    return proxy;
  }

  @Override
  public void close() {
    try {
      proxy.close();
    } catch (IOException e) {
      // closing anyway
    }
    server.shutdown();
    server.awaitShutdown();
  }
}
