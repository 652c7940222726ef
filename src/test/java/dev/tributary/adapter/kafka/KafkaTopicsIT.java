package dev.tributary.adapter.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.TributaryIT;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.Topics;
import dev.tributary.port.Topics.TopicSpec;
import dev.tributary.port.Topics.TopicState;
import dev.tributary.system.TributaryProperties;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

@TributaryIT
class KafkaTopicsIT {

  @Autowired KafkaTopics topics;
  @Autowired Admin admin;
  @Autowired TributaryProperties properties;

  private static String name() {
    return "it-topic-" + UUID.randomUUID();
  }

  @Test
  void shouldCreateTopicWithPartitionsAndConfigsWhenAbsent() {
    String name = name();
    Map<String, String> configs =
        Map.of(
            "cleanup.policy", "compact",
            "retention.ms", "2592000000",
            "retention.bytes", "1073741824",
            "max.message.bytes", "2097152",
            "min.compaction.lag.ms", "60000");

    TopicState state = topics.ensure(new TopicSpec(name, 6, configs));

    assertThat(state.created()).isTrue();
    assertThat(state.partitions()).isEqualTo(6);
    assertThat(state.replicationFactor()).isEqualTo(1);
    assertThat(state.configs()).containsAllEntriesOf(configs);
  }

  @Test
  void shouldTreatAlreadyExistingTopicAsSuccess() {
    String name = name();
    topics.ensure(new TopicSpec(name, 2, Map.of("retention.ms", "1000")));

    TopicState again = topics.ensure(new TopicSpec(name, 4, Map.of()));

    assertThat(again.created()).isFalse();
    assertThat(again.partitions()).isEqualTo(2);
    assertThat(again.configs()).containsEntry("retention.ms", "1000");
  }

  @Test
  void shouldKnowATopicExistsTheMomentAnotherClientCreatedIt() throws Exception {
    for (int i = 0; i < 20; i++) {
      String name = name();
      admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get();

      // No wait: the broker answering a describe may not know of it yet; the controller does.
      assertThat(topics.exists(name)).as("round %d", i).isTrue();
    }
    String absent = name();
    assertThat(topics.exists(absent)).isFalse();
    assertThat(topics.describe(absent)).as("checking creates nothing").isEmpty();
  }

  @Test
  void shouldSetAndRemoveConfigOverrides() {
    String name = name();
    topics.ensure(new TopicSpec(name, 1, Map.of("retention.ms", "1000")));
    Map<String, String> change = new HashMap<>();
    change.put("retention.ms", null);
    change.put("cleanup.policy", "compact,delete");

    topics.alterConfigs(name, change);

    // The controller has committed the change when the call returns; the broker that answers
    // describe applies it from the metadata log a moment later (one clean-clone run read the old
    // retention.ms back at once).
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () ->
                assertThat(topics.describe(name).orElseThrow().configs())
                    .doesNotContainKey("retention.ms")
                    .containsEntry("cleanup.policy", "compact,delete"));
  }

  @Test
  void shouldDeleteTopicAndTreatAlreadyGoneAsSuccess() {
    String name = name();
    topics.ensure(new TopicSpec(name, 1, Map.of()));

    topics.delete(name);
    topics.delete(name);

    // Deletion completes asynchronously on the broker.
    await().atMost(Duration.ofSeconds(10)).until(() -> topics.describe(name).isEmpty());
  }

  @Test
  void shouldRefuseToAlterConfigsOfMissingTopicWithoutRetrying() {
    assertThatThrownBy(() -> topics.alterConfigs(name(), Map.of("retention.ms", "1")))
        .isInstanceOf(RemoteSystemException.class)
        .isNotInstanceOf(DependencyUnavailableException.class)
        .hasMessageContaining("alter configs");
  }

  @Test
  void shouldRejectInvalidConfigWithKafkaMessage() {
    assertThatThrownBy(
            () -> topics.ensure(new TopicSpec(name(), 1, Map.of("cleanup.policy", "sometimes"))))
        .isInstanceOf(RemoteSystemException.class)
        .hasMessageContaining("cleanup.policy");
  }

  @Test
  void shouldReadTopicsOneAfterAnotherWithOneKeptConsumer() throws Exception {
    String first = name();
    String second = name();
    topics.ensure(new TopicSpec(first, 2, Map.of()));
    topics.ensure(new TopicSpec(second, 1, Map.of()));
    TributaryProperties.Kafka kafka = properties.kafka();
    try (var producer = KafkaConfiguration.tombstoneProducer(kafka)) {
      producer.send(new ProducerRecord<>(first, 0, bytes("a"), bytes("1"))).get();
      producer.send(new ProducerRecord<>(first, 1, bytes("b"), bytes("2"))).get();
      producer.send(new ProducerRecord<>(second, 0, bytes("c"), bytes("3"))).get();
    }
    AtomicInteger made = new AtomicInteger();
    AtomicReference<Consumer<byte[], byte[]>> kept = new AtomicReference<>();
    try (KafkaTopics reads =
        new KafkaTopics(
            admin,
            kafka.requestTimeout(),
            () -> {
              made.incrementAndGet();
              kept.set(KafkaConfiguration.readConsumer(kafka));
              return kept.get();
            },
            () -> KafkaConfiguration.tombstoneProducer(kafka))) {

      assertThat(scanned(reads, first)).containsExactlyInAnyOrder("0:a=1", "1:b=2");
      assertThat(scanned(reads, second)).containsExactly("0:c=3");
      reads.tombstones(first, List.of(new Topics.KeyAt(0, bytes("a"))));
      assertThat(scanned(reads, first)).containsExactlyInAnyOrder("0:a=1", "0:a=null", "1:b=2");
      assertThat(reads.latest(second, 10))
          .extracting(Topics.TopicRecord::keyText)
          .containsExactly("c");

      // Each read had the topic's records only, and all four were served by one consumer.
      assertThat(made).hasValue(1);
      assertThat(kept.get().assignment()).isEmpty(); // idle between reads: it fetches nothing
    }
    // Closing the topics closed the consumer they kept.
    assertThatThrownBy(() -> kept.get().assignment())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  private static List<String> scanned(KafkaTopics reads, String topic) {
    List<String> records = new ArrayList<>();
    reads.scan(
        topic,
        r ->
            records.add(
                r.partition()
                    + ":"
                    + new String(r.key(), StandardCharsets.UTF_8)
                    + "="
                    + (r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8))));
    return records;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldReportUnavailableWhenKafkaCannotBeReached() {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 1500,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000))) {
      KafkaTopics unreachable = new KafkaTopics(admin, Duration.ofSeconds(2));

      assertThatThrownBy(() -> unreachable.describe("anything"))
          .isInstanceOf(DependencyUnavailableException.class)
          .satisfies(e -> assertThat(((RemoteSystemException) e).retryable()).isTrue());
    }
  }
}
