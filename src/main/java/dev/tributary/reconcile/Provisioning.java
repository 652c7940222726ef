package dev.tributary.reconcile;

import dev.tributary.plan.DeadLetters;
import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.Beside;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/** The steps that give a table its place in the world: a validated query, a topic, subjects. */
final class Provisioning {

  private final QueryPlanner planner;
  private final Topics topics;
  private final SubjectIds ids;

  Provisioning(QueryPlanner planner, Topics topics, SubjectIds ids) {
    this.planner = planner;
    this.topics = topics;
    this.ids = ids;
  }

  Next validate(ReconcilePass p, MaterializedTableDefinition effective) {
    Phase validating = p.phase == Phase.PENDING ? Phase.CREATING : p.phase;
    try {
      // Flink's answer to the accepting call is usually kept: then the pass does not write that it
      // is asking, one write fewer before the table's topic and job.
      QueryPlanner.QueryShape shape =
          planner.acceptedFromKept(p.table.name(), p.table.spec().definition()).orElse(null);
      if (shape == null) {
        p.save(
            validating,
            p.status.with(
                TableStatus.READY, false, Reason.Provisioning, "Validating the query with Flink"),
            null);
        shape = planner.validateAccepted(p.table.name(), p.table.spec().definition());
      }
      String mode = effective.options().get("changelog.mode");
      TableStatus next =
          p.status.toBuilder()
              .validated(p.table.definitionVersion(), shape.columns(), mode)
              .detail(null)
              .build();
      p.event(
          "NORMAL",
          "QueryValidated",
          "Query produces "
              + shape.columns().size()
              + " columns, "
              + (shape.changelogMode().insertOnly() ? "insert-only" : "with updates"));
      p.save(
          validating,
          next.with(TableStatus.READY, false, Reason.QueryValidated, "Query validated"),
          null);
      return null; // valid: provisioning goes on in this pass
    } catch (QueryPlanner.InvalidQueryException e) {
      p.event("WARNING", "InvalidQuery", e.getMessage());
      TableStatus next =
          p.status.toBuilder().invalid(p.table.definitionVersion()).detail(e.getMessage()).build();
      return p.save(
          Phase.FAILED,
          next.with(TableStatus.READY, false, Reason.InvalidQuery, e.getMessage()),
          p.resync());
    }
  }

  /**
   * The table's topic and its subjects. Once the topic is known to be absent or the table's own,
   * the key's and the value's subjects are registered on threads of their own (each a lookup, then
   * a registration when the subject lacks the schema) while the topic is created: the three take
   * the time of the longest, where they took the sum.
   *
   * <p>A new topic is created beside the pass's next steps: the pass goes on (a job's session is
   * opened and its tables declared meanwhile), and the creation and the registrations are awaited
   * and recorded ({@link ReconcilePass#provisioned}) before the job's INSERT is sent, or before the
   * pass writes its status, whichever comes first; only the job's intent is written without waiting
   * ({@link ReconcilePass#saveIntent}). So the INSERT never runs before its topic exists; a broker
   * that creates topics on a first write would create it with its own defaults.
   */
  Next ensureTopicAndSubjects(ReconcilePass p, PipelinePlan plan) {
    Topics.TopicSpec spec = plan.topic();
    Optional<Topics.TopicState> existing =
        p.batchTopic(spec.name()).orElseGet(() -> topics.describe(spec.name()));
    // Named in the status by an earlier pass: the topic is this table's, even if that pass's
    // creation never returned.
    boolean ours = p.status.topic() != null;
    if (existing.isPresent() && !ours) {
      return conflict(p, new ForeignTopicException(spec.name()));
    }
    List<PipelinePlan.Subject> subjects = plan.subjects();
    PipelinePlan.Subject value = subjects.get(subjects.size() - 1);
    PipelinePlan.Subject key = subjects.size() > 1 ? subjects.get(0) : null;
    boolean registered =
        p.status.valueSchemaId() != null
            && (key == null || p.status.keySchemaId() != null)
            && p.status.subjectsVersion() == p.table.definitionVersion();
    // Intent first, in one write: a topic or a subject named in our status is ours, even if its
    // creation never returns.
    TableStatus named = p.status;
    if (!registered
        && (p.status.valueSubject() == null || (key != null && p.status.keySubject() == null))) {
      named =
          named.toBuilder()
              .subjects(key == null ? null : key.name(), null, value.name(), null)
              .build();
    }
    if (existing.isEmpty()) {
      named = named.toBuilder().topic(spec.name(), spec.partitions()).build();
    }
    if (!named.equals(p.status)) {
      p.save(
          existing.isEmpty() && p.phase == Phase.PENDING ? Phase.CREATING : p.phase, named, null);
    }
    if (!registered) {
      // Before the registrations start (not when they are awaited, maybe after the job's session
      // on a slow gateway, the claim run out): a pass that lost its claim registers nothing.
      p.step("subjects");
    }
    // Registered for this very definition: a pass with nothing to do asks the registry nothing.
    Registrations registrations =
        registered
            ? null
            : new Registrations(
                key,
                key == null ? null : ids.registering(key, p.status.keySchemaId() != null),
                value,
                ids.registering(value, p.status.valueSchemaId() != null));
    if (existing.isEmpty()) {
      p.step("topic");
      CompletableFuture<Topics.TopicState> created = Beside.ask(() -> topics.ensure(spec));
      p.underway(
          () -> topicCreated(p, spec, ours, created, registrations), registering(registrations));
      return null;
    }
    if (existing.get().partitions() != spec.partitions()) {
      repartition(p, spec, existing.get());
      // The job starts once the topic is back with its new partitions; the registrations end on
      // their own: asking again is harmless.
      return p.save(p.phase, p.status, Next.soon());
    }
    alignConfigs(p, spec, existing.get());
    p.status = ready(spec).apply(p.status);
    p.status = subjectsRegistered(p, registrations).apply(p.status);
    return null;
  }

  /** The new topic, once created, and the subjects: their events, and what they set in a status. */
  private UnaryOperator<TableStatus> topicCreated(
      ReconcilePass p,
      Topics.TopicSpec spec,
      boolean ours,
      CompletableFuture<Topics.TopicState> created,
      Registrations registrations) {
    if (!Beside.await(created).created() && !ours) {
      // Described as absent, yet there when created: somebody else's topic, made in between or
      // not yet known to the broker that was asked. It is not written to, nor named as ours.
      throw new ForeignTopicException(spec.name());
    }
    p.event(
        "NORMAL",
        "TopicCreated",
        "Created topic " + spec.name() + " with " + spec.partitions() + " partitions");
    UnaryOperator<TableStatus> ready = ready(spec);
    p.status = ready.apply(p.status); // the topic is ready even when a subject refuses its schema
    UnaryOperator<TableStatus> subjects = subjectsRegistered(p, registrations);
    return s -> subjects.apply(ready.apply(s));
  }

  /**
   * The table's topic exists and is not the table's: the table fails, naming no topic (a DROP
   * deletes only a topic its status names), and no job writes into it.
   */
  static Next conflict(ReconcilePass p, ForeignTopicException e) {
    p.event("WARNING", "TopicConflict", e.getMessage());
    return p.save(
        Phase.FAILED,
        p.status.toBuilder()
            .topic(null, null)
            .detail(e.getMessage())
            .build()
            .with(TableStatus.TOPIC_READY, false, Reason.TopicConflict, e.getMessage()),
        p.resync());
  }

  /** A table's topic that exists but was not created for it. */
  static final class ForeignTopicException extends RuntimeException {
    ForeignTopicException(String topic) {
      super(
          "Topic "
              + topic
              + " already exists and does not belong to this table; it is not adopted");
    }
  }

  private static UnaryOperator<TableStatus> ready(Topics.TopicSpec spec) {
    return s ->
        s.with(
            TableStatus.TOPIC_READY,
            true,
            Reason.TopicCreated,
            "Topic " + spec.name() + " is ready");
  }

  /**
   * Topic configs the definition owns are set to its values; one it no longer sets (RESET) is
   * removed from the topic, so the broker's default applies again. Other configs are left alone.
   */
  private void alignConfigs(ReconcilePass p, Topics.TopicSpec spec, Topics.TopicState existing) {
    Map<String, String> drift = new HashMap<>();
    for (String key : PipelinePlan.MANAGED_TOPIC_CONFIGS) {
      String want = spec.configs().get(key);
      String have = existing.configs().get(key);
      if (!Objects.equals(want, have)) {
        drift.put(key, want);
      }
    }
    if (!drift.isEmpty()) {
      p.step("topic-configs");
      topics.alterConfigs(spec.name(), drift);
      p.event(
          "NORMAL",
          "TopicUpdated",
          "Set " + drift + " on topic " + spec.name() + " (null: broker default)");
    }
  }

  /**
   * A new bucket count: an empty topic is created again with it (the plan refuses the change for a
   * topic with records, whose keys would move between partitions).
   */
  private void repartition(ReconcilePass p, Topics.TopicSpec spec, Topics.TopicState existing) {
    if (topics.hasRecords(spec.name())) {
      String message =
          "Topic "
              + spec.name()
              + " has "
              + existing.partitions()
              + " partitions and holds records; "
              + spec.partitions()
              + " buckets need DROP and CREATE";
      p.event("WARNING", "TopicConflict", message);
      throw new IllegalArgumentException(message);
    }
    p.step("repartition");
    topics.delete(spec.name());
    topics.ensure(spec);
    p.status = p.status.toBuilder().topic(spec.name(), spec.partitions()).build();
    p.event(
        "NORMAL",
        "TopicUpdated",
        "Created empty topic " + spec.name() + " again with " + spec.partitions() + " partitions");
  }

  /** The subjects being registered, or null when they are registered for this definition. */
  private record Registrations(
      PipelinePlan.Subject key,
      CompletableFuture<SubjectIds.Registration> keyId,
      PipelinePlan.Subject value,
      CompletableFuture<SubjectIds.Registration> valueId) {}

  /** The registrations under way: a job's writers take the same ids. */
  private static Map<PipelinePlan.Subject, CompletableFuture<SubjectIds.Registration>> registering(
      Registrations r) {
    Map<PipelinePlan.Subject, CompletableFuture<SubjectIds.Registration>> registering =
        new HashMap<>();
    if (r != null) {
      registering.put(r.value(), r.valueId());
      if (r.key() != null) {
        registering.put(r.key(), r.keyId());
      }
    }
    return registering;
  }

  /**
   * Awaits the registrations (their events are recorded now) and answers what they set in a status;
   * a schema a subject refuses sets its condition on the pass's status and is thrown.
   */
  private UnaryOperator<TableStatus> subjectsRegistered(ReconcilePass p, Registrations r) {
    if (r == null) {
      return UnaryOperator.identity();
    }
    Integer keyId = r.key() == null ? null : registered(p, r.key(), r.keyId());
    int valueId = registered(p, r.value(), r.valueId());
    PipelinePlan.Subject key = r.key();
    PipelinePlan.Subject value = r.value();
    return s ->
        s.toBuilder()
            .subjects(key == null ? null : key.name(), keyId, value.name(), valueId)
            .subjectsOf(p.table.definitionVersion())
            .build()
            .with(
                TableStatus.SCHEMA_REGISTERED,
                true,
                Reason.SchemaRegistered,
                "Registered " + value.name() + (key == null ? "" : " and " + key.name()));
  }

  /** The registration's id; its event and, for a schema the subject refuses, the status. */
  private static int registered(
      ReconcilePass p,
      PipelinePlan.Subject subject,
      CompletableFuture<SubjectIds.Registration> registration) {
    SubjectIds.Registration r;
    try {
      r = Beside.await(registration);
    } catch (SchemaRegistry.IncompatibleSchemaException e) {
      p.status =
          p.status.with(
              TableStatus.SCHEMA_REGISTERED, false, Reason.SchemaIncompatible, e.getMessage());
      throw e;
    }
    if (r.registered()) {
      p.event(
          "NORMAL", "SchemaRegistered", "Registered " + subject.name() + " (id " + r.id() + ")");
    }
    return r.id();
  }

  /**
   * {@code 'error-handling.mode' = 'log'}: the dead-letter table's topic and value subject exist
   * before a job writes to them. The table itself was put in the catalog when the definition was
   * accepted; a table removed since then stops the job's start with that cause.
   */
  void ensureDeadLetters(ReconcilePass p, PipelinePlan plan) {
    if (!DeadLetterTable.logs(plan.effective().options())) {
      return;
    }
    ObjectName target = DeadLetterTable.target(p.table.name(), plan.effective().options());
    String topic = deadLetterTopic(planner, target);
    p.step("dead-letters");
    Topics.TopicState state =
        topics.ensure(new Topics.TopicSpec(topic, 1, Map.of("cleanup.policy", "delete")));
    if (state.created()) {
      p.event(
          "NORMAL",
          "TopicCreated",
          "Created topic " + topic + " of the dead-letter table " + target);
    }
    PipelinePlan.Subject subject = DeadLetters.subject(topic);
    registered(p, subject, ids.registering(subject));
  }

  /** The topic of dead-letter table {@code target}, as the catalog has it. */
  static String deadLetterTopic(QueryPlanner planner, ObjectName target) {
    return planner
        .declaration(target)
        .map(d -> d.options().get("topic"))
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "The dead-letter table "
                        + target
                        + " ('error-handling.log.target') is no longer in the catalog;"
                        + " create it again, or ALTER this table to another target"));
  }
}
