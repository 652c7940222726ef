package dev.tributary.sql;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The Kafka client's own configuration, read from its {@link ConfigDef}s (producer, consumer,
 * admin): which keys hold passwords, and which a source table's {@code properties.*} may set. A
 * client setting that loads a class (type CLASS, or a list of classes), runs a command or installs
 * a provider is not one a tenant may set: it runs code in the Flink cluster.
 */
public final class KafkaClientOptions {

  /** The prefix under which the Kafka connector passes options to its clients. */
  public static final String PREFIX = "properties.";

  private static final Map<String, ConfigDef.Type> TYPES = new HashMap<>();
  private static final Set<String> PASSWORDS = new HashSet<>();

  /**
   * Options of Flink's Kafka source passed through {@code properties.} that are not client
   * configuration ({@code KafkaSourceOptions}).
   */
  private static final Set<String> FLINK_SOURCE =
      Set.of(
          "partition.discovery.interval.ms",
          "client.id.prefix",
          "register.consumer.metrics",
          "commit.offsets.on.checkpoint");

  static {
    for (ConfigDef def :
        new ConfigDef[] {
          ConsumerConfig.configDef(), ProducerConfig.configDef(), AdminClientConfig.configDef()
        }) {
      def.configKeys()
          .values()
          .forEach(
              k -> {
                TYPES.putIfAbsent(k.name, k.type);
                if (k.type == ConfigDef.Type.PASSWORD) {
                  PASSWORDS.add(k.name);
                }
              });
    }
  }

  private KafkaClientOptions() {}

  /** The client keys of type PASSWORD. */
  public static Set<String> passwords() {
    return Set.copyOf(PASSWORDS);
  }

  /** Whether the (lower-case) option key is, or ends with, a client key of type PASSWORD. */
  static boolean isPassword(String key) {
    for (String password : PASSWORDS) {
      if (key.equals(password) || key.endsWith("." + password)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Why a client key (without {@code properties.}) may not be set by a source table, or empty when
   * it may: unknown keys, keys that load classes, run commands or install providers are refused.
   */
  public static Optional<String> refusal(String clientKey) {
    String k = clientKey.toLowerCase(Locale.ROOT);
    if (FLINK_SOURCE.contains(k)) {
      return Optional.empty();
    }
    ConfigDef.Type type = TYPES.get(k);
    if (k.endsWith(".class")
        || k.endsWith(".classes")
        || k.endsWith(".serializer")
        || k.endsWith(".deserializer")
        || type == ConfigDef.Type.CLASS) {
      return Optional.of("it loads a class");
    }
    if (k.endsWith(".cmd")) {
      return Optional.of("it runs a command");
    }
    if (k.endsWith(".providers")) {
      return Optional.of("it installs providers (classes)");
    }
    if (k.endsWith(".reporters") || k.equals("partition.assignment.strategy")) {
      return Optional.of("it names classes to load");
    }
    if (k.contains("callback") || k.contains("interceptor")) {
      return Optional.of("it installs a callback or interceptor (a class)");
    }
    if (type == null) {
      return Optional.of("it is not a setting of the Kafka client");
    }
    return Optional.empty();
  }
}
