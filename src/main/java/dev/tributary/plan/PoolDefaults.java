package dev.tributary.plan;

import java.util.Optional;

/** The compute pool a new table of a database runs on when its statement names none. */
public interface PoolDefaults {

  /** No defaults set anywhere: every table without a pool runs on {@code default}. */
  PoolDefaults NONE = (catalog, database) -> Optional.empty();

  /** The database's default pool, else its catalog's; empty when neither is set. */
  Optional<String> defaultPool(String catalog, String database);
}
