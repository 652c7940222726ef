package dev.tributary.plan;

import java.util.Optional;

/** The compute pool a new table of a database runs on when its statement names none. */
public interface PoolDefaults {

  /**
   * A default that is no pool but a choice: the pool with the most room for the table's job when it
   * is created (see {@link Placement#leastLoaded}). No pool can have this name.
   */
  String LEAST_LOADED = "*";

  /** No defaults set anywhere: every table without a pool runs on {@code default}. */
  PoolDefaults NONE = (catalog, database) -> Optional.empty();

  /**
   * The database's default pool, else its catalog's ({@link #LEAST_LOADED} for a choice); empty
   * when neither is set.
   */
  Optional<String> defaultPool(String catalog, String database);
}
