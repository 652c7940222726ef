package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.port.SchemaRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The registry's ids of the schemas a job's writers frame records with, resolved by the service
 * just before the job is submitted and passed to the writers ({@link
 * PipelinePlan#jobStatements(java.time.Duration, String, Map)}). Each writer would otherwise ask
 * the registry when it opens, on the job's own time: two round trips in every job's start, and in
 * the critical path of every FULL refresh (about 170 ms a refresh here, in JFR's record of the
 * writer's thread).
 *
 * <p>The ids are asked on a thread of their own while the job's session is opened and its sources
 * declared, and asked again for every submission, as the writers did: an id is never taken from a
 * status that a registry restored from nothing could have made wrong. As the writer did, a subject
 * whose latest version is not the schema gets the schema registered again (the registry answers
 * with the id the subject already has for it, or a new version when the subject lost it).
 */
final class SchemaIdLookup {

  private static final ExecutorService LOOKUPS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "schema-ids");
            t.setDaemon(true);
            return t;
          });

  private final SchemaRegistry registry;

  SchemaIdLookup(SchemaRegistry registry) {
    this.registry = registry;
  }

  /** The ids of {@code plan}'s subjects whose writers take one, by subject, asked from now on. */
  CompletableFuture<Map<String, Integer>> of(PipelinePlan plan) {
    List<PipelinePlan.Subject> subjects = plan.idsPassed();
    if (subjects.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    return CompletableFuture.supplyAsync(
        () -> {
          Map<String, Integer> ids = new LinkedHashMap<>();
          for (PipelinePlan.Subject subject : subjects) {
            ids.put(subject.name(), idOf(subject));
          }
          return ids;
        },
        LOOKUPS);
  }

  private int idOf(PipelinePlan.Subject subject) {
    Optional<SchemaRegistry.RegisteredSchema> latest = registry.latest(subject.name());
    if (latest.isPresent() && latest.get().schema().equals(subject.schema())) {
      return latest.get().id();
    }
    return registry.register(subject.name(), subject.schema());
  }

  /** The ids, once asked; what the registry answered otherwise is thrown as it was. */
  static Map<String, Integer> await(CompletableFuture<Map<String, Integer>> ids) {
    try {
      return ids.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }
}
