package dev.tributary.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.adapter.schemaregistry.ConfluentSchemaRegistry;
import dev.tributary.port.SchemaRegistry.Compatibility;
import dev.tributary.port.SchemaRegistry.IncompatibleSchemaException;
import dev.tributary.port.SchemaRegistry.Schema;
import dev.tributary.port.SchemaRegistry.SchemaType;
import dev.tributary.system.HttpClients;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry the run command starts on a machine with only a Java 17: Apicurio 3.0 on this JVM,
 * talked to through the service's own Confluent adapter, as the reconciler talks to 3.3.
 */
class ApicurioJava17IT {

  @TempDir static Path dir;
  static ApicurioRegistry registry;
  static ConfluentSchemaRegistry client;

  @BeforeAll
  static void start() throws Exception {
    ApicurioRegistry.Choice choice = ApicurioRegistry.java17("asked for by the test");
    assertThat(choice.java().toString()).startsWith(System.getProperty("java.home"));
    registry = ApicurioRegistry.start(dir, choice);
    client =
        new ConfluentSchemaRegistry(
            HttpClients.restClient(registry.url(), Duration.ofSeconds(10)).build());
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.close();
    }
  }

  @Test
  void shouldSayWhichRegistryRunsOnWhichJava() {
    assertThat(registry.description())
        .matches("Apicurio Registry 3\\.0\\.\\d+ on Java " + Runtime.version().feature() + " .*");
  }

  @Test
  void shouldSpeakTheConfluentApiTheReconcilerUses() {
    Schema json =
        new Schema(
            SchemaType.JSON,
            "{\"type\":\"object\",\"properties\":{\"order_id\":{\"type\":\"string\"}},"
                + "\"additionalProperties\":false}");
    int id = client.register("orders-value", json);
    assertThat(client.register("orders-value", json)).isEqualTo(id);
    assertThat(client.latest("orders-value").orElseThrow().id()).isEqualTo(id);
    assertThat(client.byId(id)).isPresent();

    Schema avro =
        new Schema(
            SchemaType.AVRO,
            "{\"type\":\"record\",\"name\":\"k\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}");
    Schema breaking =
        new Schema(
            SchemaType.AVRO,
            "{\"type\":\"record\",\"name\":\"k\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
                + "{\"name\":\"n\",\"type\":\"int\"}]}");
    client.register("orders-key", avro);
    client.setCompatibility("orders-key", Compatibility.BACKWARD);
    assertThat(client.compatibility("orders-key")).contains(Compatibility.BACKWARD);
    assertThat(client.isCompatible("orders-key", breaking)).isFalse();
    assertThatThrownBy(() -> client.register("orders-key", breaking))
        .isInstanceOf(IncompatibleSchemaException.class);
    assertThat(client.subjects()).contains("orders-key", "orders-value");
    client.deleteSubject("orders-key", false);
    client.deleteSubject("orders-key", true);
    assertThat(client.subjects()).doesNotContain("orders-key");
    assertThat(client.latest("orders-key")).isEmpty();
  }
}
