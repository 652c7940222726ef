package dev.tributary.system;

/**
 * The version of the resources' shape, which every resource carries as {@code apiVersion}.
 *
 * <p>v2 (this one): a table's {@code status} holds phase, observedGeneration and conditions (each
 * with its own observedGeneration) at its top and typed parts after them (topic, subjects, schema,
 * job, lastSavepoint, lastCheckpoint, evolution, run) where v1 had {@code status.details}, the
 * reconciler's own record; source tables come in the same envelope (kind SourceTable); table events
 * carry their id and table; problem types are {@code /problems/{code}}.
 */
public final class ApiVersion {

  public static final String CURRENT = "tributary.dev/v2";

  private ApiVersion() {}
}
