package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.system.Beside;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Registry calls a pass makes beside its own work, each on a thread of its own: a new table's key
 * and value subjects are registered while its topic is created ({@link Provisioning}), and the ids
 * of the schemas a job's writers frame records with are resolved while the job's session is opened
 * and its sources declared, then passed to the writers (the ids argument of {@code
 * PipelinePlan.jobStatements}). Each writer would otherwise ask the registry when it opens, on the
 * job's own time: in the critical path of every job's start and of every FULL refresh (about 170 ms
 * a refresh here, in JFR's record of the writer's thread).
 *
 * <p>The ids are asked again for every submission, as the writers did: an id is never taken from a
 * status that a registry restored from nothing could have made wrong (a pass that registers the
 * subjects itself takes the ids its registrations answered). As the writer did, a subject whose
 * latest version is not the schema gets the schema registered again (the registry answers with the
 * id the subject already has for it, or a new version when the subject lost it).
 */
final class SubjectIds {

  private final SchemaRegistry registry;

  SubjectIds(SchemaRegistry registry) {
    this.registry = registry;
  }

  /** A subject's id, and whether it was registered now (the subject's latest was another). */
  record Registration(int id, boolean registered) {}

  /**
   * The id of {@code subject}'s schema, asked on another thread: the subject's latest version when
   * it is the schema, else the schema registered (a registry answers with the id the subject has
   * for it already, or adds a version).
   */
  CompletableFuture<Registration> registering(PipelinePlan.Subject subject) {
    return registering(subject, true);
  }

  /**
   * As {@link #registering(PipelinePlan.Subject)}; without {@code lookFirst} the schema is
   * registered at once, one call instead of two: for a table that has no id for the subject yet,
   * whose subject is almost always new. Registering a schema the subject has already adds no
   * version.
   */
  CompletableFuture<Registration> registering(PipelinePlan.Subject subject, boolean lookFirst) {
    if (!lookFirst) {
      return Beside.ask(
          () -> new Registration(registry.register(subject.name(), subject.schema()), true));
    }
    return Beside.ask(
        () -> {
          Optional<SchemaRegistry.RegisteredSchema> latest = registry.latest(subject.name());
          if (latest.isPresent() && latest.get().schema().equals(subject.schema())) {
            return new Registration(latest.get().id(), false);
          }
          return new Registration(registry.register(subject.name(), subject.schema()), true);
        });
  }

  /** The ids of {@code plan}'s subjects whose writers take one, by subject, all asked at once. */
  CompletableFuture<Map<String, Integer>> of(PipelinePlan plan) {
    return of(plan, Map.of());
  }

  /**
   * As {@link #of(PipelinePlan)}, but a subject the pass registers already ({@code registering})
   * takes that registration's id, not a second registration of the same schema racing it.
   */
  CompletableFuture<Map<String, Integer>> of(
      PipelinePlan plan, Map<PipelinePlan.Subject, CompletableFuture<Registration>> registering) {
    Map<String, CompletableFuture<Registration>> asked = new LinkedHashMap<>();
    for (PipelinePlan.Subject subject : plan.idsPassed()) {
      CompletableFuture<Registration> underway = registering.get(subject);
      asked.put(subject.name(), underway != null ? underway : registering(subject));
    }
    return CompletableFuture.allOf(asked.values().toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              Map<String, Integer> ids = new LinkedHashMap<>();
              asked.forEach((subject, id) -> ids.put(subject, id.join().id()));
              return ids;
            });
  }
}
