package dev.tributary.adapter.kafka;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link Topics} over the Kafka AdminClient, with consumers for bounded reads (a refresh's scan for
 * keys that left its result, a table's latest rows) and a producer for tombstones.
 */
public class KafkaTopics implements Topics, AutoCloseable {

  /**
   * Consumers kept between bounded reads. A new consumer (its configuration, metrics, first
   * connection and metadata) cost more than reading a table of a few thousand records: 80-110 ms of
   * a FULL refresh's 114 ms tombstone scan in {@code RefreshBench}.
   */
  static final int IDLE_CONSUMERS = 2;

  /** How long a kept consumer may sit unused before it is closed. */
  static final Duration MAX_IDLE = Duration.ofMinutes(5);

  private final Admin admin;
  private final Duration timeout;
  private final Supplier<Producer<byte[], byte[]>> producers;
  private final GenericObjectPool<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> idle;

  public KafkaTopics(Admin admin, Duration timeout) {
    this(
        admin,
        timeout,
        () -> {
          throw new UnsupportedOperationException("No consumer configured");
        },
        () -> {
          throw new UnsupportedOperationException("No producer configured");
        });
  }

  public KafkaTopics(
      Admin admin,
      Duration timeout,
      Supplier<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> consumers,
      Supplier<Producer<byte[], byte[]>> producers) {
    this.admin = admin;
    this.timeout = timeout;
    this.producers = producers;
    GenericObjectPoolConfig<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> config =
        new GenericObjectPoolConfig<>();
    config.setMaxTotal(-1); // every concurrent read has a consumer of its own, as before the pool
    config.setMaxIdle(IDLE_CONSUMERS);
    config.setMinEvictableIdleDuration(MAX_IDLE);
    config.setTimeBetweenEvictionRuns(Duration.ofMinutes(1));
    config.setJmxEnabled(false);
    this.idle = new GenericObjectPool<>(new ConsumerFactory(consumers), config);
  }

  @Override
  public Map<Integer, Long> endOffsets(String name) {
    Optional<TopicState> topic = describe(name);
    if (topic.isEmpty()) {
      throw new RemoteSystemException(
          ExternalSystem.KAFKA, "Topic " + name + " does not exist", false);
    }
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < topic.get().partitions(); p++) {
      latest.put(new TopicPartition(name, p), OffsetSpec.latest());
    }
    var ends =
        await(
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all(),
            "list offsets of " + name);
    Map<Integer, Long> offsets = new TreeMap<>();
    ends.forEach((partition, info) -> offsets.put(partition.partition(), info.offset()));
    return offsets;
  }

  @Override
  public Optional<Long> retainedOffsets(String name) {
    return spans(name)
        .map(spans -> spans.values().stream().mapToLong(span -> span[1] - span[0]).sum());
  }

  @Override
  public long truncate(String name) {
    Optional<Map<TopicPartition, long[]>> spans = spans(name);
    if (spans.isEmpty()) {
      return 0;
    }
    Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
    long records = 0;
    for (var span : spans.get().entrySet()) {
      records += span.getValue()[1] - span.getValue()[0];
      delete.put(span.getKey(), RecordsToDelete.beforeOffset(span.getValue()[1]));
    }
    await(admin.deleteRecords(delete).all(), "delete the records of " + name);
    return records;
  }

  /** Each partition's earliest and latest offset; empty when the topic does not exist. */
  private Optional<Map<TopicPartition, long[]>> spans(String name) {
    Optional<TopicState> topic = describe(name);
    if (topic.isEmpty()) {
      return Optional.empty();
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < topic.get().partitions(); p++) {
      earliest.put(new TopicPartition(name, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(name, p), OffsetSpec.latest());
    }
    var begins = await(admin.listOffsets(earliest).all(), "list offsets of " + name);
    var ends = await(admin.listOffsets(latest).all(), "list offsets of " + name);
    Map<TopicPartition, long[]> spans = new HashMap<>();
    ends.forEach(
        (partition, end) ->
            spans.put(partition, new long[] {begins.get(partition).offset(), end.offset()}));
    return Optional.of(spans);
  }

  @Override
  public void scan(String name, Consumer<TopicRecord> each) {
    Map<Integer, Long> ends = endOffsets(name);
    reading(name, consumer -> scan(consumer, name, ends, each));
  }

  private Void scan(
      org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
      String name,
      Map<Integer, Long> ends,
      Consumer<TopicRecord> each) {
    List<TopicPartition> partitions =
        ends.keySet().stream().map(p -> new TopicPartition(name, p)).toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    long deadline = System.nanoTime() + timeout.multipliedBy(10).toNanos();
    while (true) {
      boolean done = true;
      for (TopicPartition partition : partitions) {
        if (consumer.position(partition, timeout) < ends.get(partition.partition())) {
          done = false;
        }
      }
      if (done) {
        return null;
      }
      if (System.nanoTime() > deadline) {
        throw new DependencyUnavailableException(
            ExternalSystem.KAFKA,
            "read topic " + name + ": not at its end offsets " + ends + " in time",
            null);
      }
      for (var r : consumer.poll(Duration.ofMillis(200))) {
        if (r.offset() < ends.get(r.partition())) {
          each.accept(
              new TopicRecord(
                  r.partition(),
                  r.offset(),
                  Instant.ofEpochMilli(r.timestamp()),
                  r.key(),
                  r.value()));
        }
      }
    }
  }

  /**
   * {@code read} with a consumer of its own: an idle one if there is one, else a new one. It is
   * kept for the next read unless the read failed (its state is then unknown) or enough are idle.
   */
  private <T> T reading(
      String name, Function<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>, T> read) {
    org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer;
    try {
      consumer = idle.borrowObject();
    } catch (org.apache.kafka.common.KafkaException e) {
      throw unavailable(name, e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("read topic " + name + ": no consumer", e);
    }
    T result;
    try {
      result = read.apply(consumer);
    } catch (RuntimeException e) {
      discard(consumer);
      if (e instanceof org.apache.kafka.common.KafkaException kafka) {
        throw unavailable(name, kafka);
      }
      throw e;
    }
    idle.returnObject(consumer); // passivated (unassigned), or closed when enough are idle
    return result;
  }

  private static DependencyUnavailableException unavailable(
      String name, org.apache.kafka.common.KafkaException e) {
    return new DependencyUnavailableException(
        ExternalSystem.KAFKA, "read topic " + name + ": " + e.getMessage(), e);
  }

  private void discard(org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer) {
    try {
      idle.invalidateObject(consumer);
    } catch (Exception e) {
      // closing a consumer whose read failed: nothing is lost if that fails too
    }
  }

  /** Closes the idle consumers and any returned later (Spring calls it when the context closes). */
  @Override
  public void close() {
    idle.close();
  }

  /** Makes the kept consumers; commons-pool2 decides how many stay idle and for how long. */
  private static final class ConsumerFactory
      extends BasePooledObjectFactory<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> {
    private final Supplier<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> consumers;

    ConsumerFactory(
        Supplier<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> consumers) {
      this.consumers = consumers;
    }

    @Override
    public org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> create() {
      return consumers.get();
    }

    @Override
    public PooledObject<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> wrap(
        org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer) {
      return new DefaultPooledObject<>(consumer);
    }

    @Override
    public void passivateObject(
        PooledObject<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> kept) {
      kept.getObject().assign(List.of()); // unassigned: it fetches nothing while idle
    }

    @Override
    public void destroyObject(
        PooledObject<org.apache.kafka.clients.consumer.Consumer<byte[], byte[]>> kept) {
      try {
        kept.getObject().close(CloseOptions.timeout(Duration.ofSeconds(1)));
      } catch (RuntimeException e) {
        // closing a consumer no read needs: nothing is lost if it fails
      }
    }
  }

  @Override
  public void tombstones(String name, List<KeyAt> keys) {
    if (keys.isEmpty()) {
      return;
    }
    try (Producer<byte[], byte[]> producer = producers.get()) {
      List<Future<?>> sent = new ArrayList<>();
      for (KeyAt key : keys) {
        sent.add(producer.send(new ProducerRecord<>(name, key.partition(), key.key(), null)));
      }
      producer.flush();
      for (var future : sent) {
        future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DependencyUnavailableException(
          ExternalSystem.KAFKA, "write tombstones to " + name + ": interrupted", e);
    } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
      throw new DependencyUnavailableException(
          ExternalSystem.KAFKA, "write tombstones to " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<TopicRecord> latest(String name, int limit) {
    Optional<TopicState> topic = describe(name);
    if (topic.isEmpty()) {
      throw new RemoteSystemException(
          ExternalSystem.KAFKA, "Topic " + name + " does not exist", false);
    }
    int count = topic.get().partitions();
    return reading(name, consumer -> latest(consumer, name, count, limit));
  }

  private List<TopicRecord> latest(
      org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer,
      String name,
      int partitionCount,
      int limit) {
    List<org.apache.kafka.common.TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < partitionCount; p++) {
      partitions.add(new org.apache.kafka.common.TopicPartition(name, p));
    }
    consumer.assign(partitions);
    Map<org.apache.kafka.common.TopicPartition, Long> ends =
        consumer.endOffsets(partitions, timeout);
    Map<org.apache.kafka.common.TopicPartition, Long> begins =
        consumer.beginningOffsets(partitions, timeout);
    long remaining = 0;
    for (var partition : partitions) {
      // Up to limit from each partition's end; the newest overall are picked below.
      long start = Math.max(begins.get(partition), ends.get(partition) - limit);
      consumer.seek(partition, start);
      remaining += ends.get(partition) - start;
    }
    List<TopicRecord> records = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (remaining > 0 && System.nanoTime() < deadline) {
      var batch = consumer.poll(Duration.ofMillis(200));
      batch.forEach(
          r ->
              records.add(
                  new TopicRecord(
                      r.partition(),
                      r.offset(),
                      Instant.ofEpochMilli(r.timestamp()),
                      r.key(),
                      r.value())));
      boolean done = true;
      for (var partition : partitions) {
        // read_committed stops at the last stable offset; transaction markers take offsets too.
        if (consumer.position(partition) < ends.get(partition)) {
          done = false;
        }
      }
      if (done) {
        break;
      }
    }
    records.sort(Comparator.comparing(TopicRecord::timestamp).thenComparing(TopicRecord::offset));
    return List.copyOf(records.subList(Math.max(0, records.size() - limit), records.size()));
  }

  /**
   * Asked by a creation that is only validated: the controller answers it from the cluster's
   * metadata. A describe is answered by a broker, which learns of a topic created a moment ago by
   * another client only when the metadata reaches it, and calls it absent meanwhile; a CREATE
   * checked that way was accepted for a topic that was already there. Where the creation is refused
   * for another reason (a policy, no permission to create), the describe answers.
   */
  @Override
  public boolean exists(String name) {
    CreateTopicsResult asked =
        admin.createTopics(
            List.of(new NewTopic(name, Optional.empty(), Optional.empty())),
            new CreateTopicsOptions().validateOnly(true));
    try {
      return !completes(asked.all(), TopicExistsException.class, "check topic " + name);
    } catch (DependencyUnavailableException e) {
      throw e;
    } catch (RemoteSystemException e) {
      return describe(name).isPresent();
    }
  }

  @Override
  public TopicState ensure(TopicSpec spec) {
    NewTopic topic =
        new NewTopic(spec.name(), Optional.of(spec.partitions()), Optional.empty())
            .configs(spec.configs());
    CreateTopicsResult result = admin.createTopics(List.of(topic));
    boolean created =
        completes(result.all(), TopicExistsException.class, "create topic " + spec.name());
    if (created) {
      Optional<TopicState> answered = answered(result, spec.name());
      if (answered.isPresent()) {
        return answered.get();
      }
    }
    TopicState state = awaitVisible(spec.name());
    return new TopicState(
        state.name(), state.partitions(), state.replicationFactor(), state.configs(), created);
  }

  /**
   * The topic as the controller's answer to its creation describes it (partitions, replication and
   * configs with their sources, in the same response): no describe is needed. Describing it instead
   * meant waiting until the broker that answers had the new metadata, on average 2.7 describes of a
   * topic and its configs per new table, 49.7 s of pass-thread time in DeclaredSetBench's 200
   * tables. Empty when the answer lacks them (a principal not allowed to describe configs).
   */
  private Optional<TopicState> answered(CreateTopicsResult result, String name) {
    try {
      Config config = result.config(name).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      int partitions = result.numPartitions(name).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      int replicas = result.replicationFactor(name).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.of(new TopicState(name, partitions, replicas, overrides(config), true));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DependencyUnavailableException(
          ExternalSystem.KAFKA, "create topic " + name + ": interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      return Optional.empty();
    }
  }

  /**
   * A topic that was just created can be unknown to the broker answering for a moment, until the
   * metadata reaches it; wait for that rather than report it missing.
   */
  private TopicState awaitVisible(String name) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = 20;
    while (true) {
      Optional<TopicState> state = describe(name);
      if (state.isPresent()) {
        return state.get();
      }
      if (System.nanoTime() > deadline) {
        throw new DependencyUnavailableException(
            ExternalSystem.KAFKA, "Topic " + name + " was created but is not visible yet", null);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DependencyUnavailableException(ExternalSystem.KAFKA, "Interrupted", e);
      }
      pause = Math.min(pause * 2, 500);
    }
  }

  @Override
  public Optional<TopicState> describe(String name) {
    return Optional.ofNullable(describeAll(List.of(name)).get(name));
  }

  @Override
  public Map<String, TopicState> describeAll(Collection<String> names) {
    if (names.isEmpty()) {
      return Map.of();
    }
    Map<String, TopicDescription> descriptions = new HashMap<>();
    admin
        .describeTopics(Set.copyOf(names))
        .topicNameValues()
        .forEach(
            (name, future) ->
                awaitUnless(
                        future, UnknownTopicOrPartitionException.class, "describe topic " + name)
                    .ifPresent(d -> descriptions.put(name, d)));
    List<ConfigResource> resources =
        descriptions.keySet().stream()
            .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n))
            .toList();
    Map<String, TopicState> states = new HashMap<>();
    if (resources.isEmpty()) {
      return states;
    }
    admin
        .describeConfigs(resources)
        .values()
        .forEach(
            (resource, future) ->
                awaitUnless(
                        future,
                        UnknownTopicOrPartitionException.class,
                        "describe configs of " + resource.name())
                    .ifPresent(
                        config ->
                            states.put(
                                resource.name(),
                                state(
                                    resource.name(), descriptions.get(resource.name()), config))));
    return states;
  }

  private static TopicState state(String name, TopicDescription description, Config config) {
    int replicas =
        description.partitions().isEmpty() ? 0 : description.partitions().get(0).replicas().size();
    return new TopicState(
        name, description.partitions().size(), replicas, overrides(config), false);
  }

  /** The configs set on the topic itself, not inherited from the broker. */
  private static Map<String, String> overrides(Config config) {
    Map<String, String> overrides = new HashMap<>();
    for (ConfigEntry entry : config.entries()) {
      if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
        overrides.put(entry.name(), entry.value());
      }
    }
    return Map.copyOf(overrides);
  }

  @Override
  public void alterConfigs(String name, Map<String, String> configs) {
    List<AlterConfigOp> ops = new ArrayList<>();
    configs.forEach(
        (key, value) ->
            ops.add(
                value == null
                    ? new AlterConfigOp(new ConfigEntry(key, null), AlterConfigOp.OpType.DELETE)
                    : new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET)));
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
    await(admin.incrementalAlterConfigs(Map.of(resource, ops)).all(), "alter configs of " + name);
  }

  @Override
  public void delete(String name) {
    // A topic that is already gone is what we wanted.
    completes(
        admin.deleteTopics(Set.of(name)).all(),
        UnknownTopicOrPartitionException.class,
        "delete topic " + name);
  }

  @Override
  public boolean hasRecords(String name) {
    Optional<TopicState> topic = describe(name);
    if (topic.isEmpty()) {
      return false;
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < topic.get().partitions(); p++) {
      earliest.put(new TopicPartition(name, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(name, p), OffsetSpec.latest());
    }
    var begins = await(admin.listOffsets(earliest).all(), "list offsets of " + name);
    var ends = await(admin.listOffsets(latest).all(), "list offsets of " + name);
    return ends.entrySet().stream()
        .anyMatch(e -> e.getValue().offset() > begins.get(e.getKey()).offset());
  }

  @Override
  public Map<String, Map<Integer, Long>> committedOffsets(String group) {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        awaitUnless(
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
                GroupIdNotFoundException.class,
                "list offsets of group " + group)
            .orElse(Map.of());
    Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
    offsets.forEach(
        (partition, offset) -> {
          if (offset != null) {
            byTopic
                .computeIfAbsent(partition.topic(), t -> new TreeMap<>())
                .put(partition.partition(), offset.offset());
          }
        });
    return byTopic;
  }

  /** The broker's {@code transaction.max.timeout.ms}, when it was read. */
  private record Read(Duration value, long atNanos) {}

  private volatile Read transactionMaxTimeout;

  /** How long the broker's transaction timeout is taken as read: it changes with a restart only. */
  static final Duration TRANSACTION_TIMEOUT_KEPT = Duration.ofMinutes(1);

  /**
   * Read once a minute at most: every job's submission asks for it (its sink's transactions must
   * not outlast it), and the two calls it takes were 7.5 s of pass-thread time in
   * DeclaredSetBench's 200 tables. A broker restarted with a lower value in that minute fails the
   * next job's transactions at their start, and the job's retry reads it again.
   */
  @Override
  public Duration transactionMaxTimeout() {
    Read read = transactionMaxTimeout;
    if (read != null && System.nanoTime() - read.atNanos() < TRANSACTION_TIMEOUT_KEPT.toNanos()) {
      return read.value();
    }
    Duration value = readTransactionMaxTimeout();
    transactionMaxTimeout = new Read(value, System.nanoTime());
    return value;
  }

  private Duration readTransactionMaxTimeout() {
    var nodes = await(admin.describeCluster().nodes(), "describe cluster");
    String broker = String.valueOf(nodes.iterator().next().id());
    ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker);
    Config config =
        await(admin.describeConfigs(List.of(resource)).values().get(resource), "describe broker");
    ConfigEntry entry = config.get("transaction.max.timeout.ms");
    return Duration.ofMillis(entry == null ? 900_000 : Long.parseLong(entry.value()));
  }

  @Override
  public void deleteGroup(String group) {
    completes(
        admin.deleteConsumerGroups(Set.of(group)).all(),
        GroupIdNotFoundException.class,
        "delete group " + group);
  }

  /** Cluster id, for the health indicator; fails like every other call when Kafka is down. */
  public String clusterId() {
    return await(admin.describeCluster().clusterId(), "describe cluster");
  }

  private <T> T await(KafkaFuture<T> future, String what) {
    return outcome(future, null, what).value();
  }

  /** Waits; false instead of an exception when the future failed with {@code expected}. */
  private boolean completes(
      KafkaFuture<?> future, Class<? extends Exception> expected, String what) {
    return !outcome(future, expected, what).expectedFailure();
  }

  /** Waits; empty instead of an exception when the future failed with {@code expected}. */
  private <T> Optional<T> awaitUnless(
      KafkaFuture<T> future, Class<? extends Exception> expected, String what) {
    Outcome<T> outcome = outcome(future, expected, what);
    return outcome.expectedFailure() ? Optional.empty() : Optional.of(outcome.value());
  }

  private record Outcome<T>(T value, boolean expectedFailure) {}

  private <T> Outcome<T> outcome(
      KafkaFuture<T> future, Class<? extends Exception> expected, String what) {
    try {
      return new Outcome<>(future.get(timeout.toMillis(), TimeUnit.MILLISECONDS), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DependencyUnavailableException(ExternalSystem.KAFKA, what + ": interrupted", e);
    } catch (TimeoutException e) {
      throw new DependencyUnavailableException(
          ExternalSystem.KAFKA, what + ": no answer from Kafka within " + timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (expected != null && expected.isInstance(cause)) {
        return new Outcome<>(null, true);
      }
      String message = what + ": " + cause.getMessage();
      if (cause instanceof UnknownTopicOrPartitionException) {
        throw new RemoteSystemException(ExternalSystem.KAFKA, message, false, cause);
      }
      if (cause instanceof RetriableException
          || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw new DependencyUnavailableException(ExternalSystem.KAFKA, message, cause);
      }
      throw new RemoteSystemException(ExternalSystem.KAFKA, message, false, cause);
    }
  }
}
