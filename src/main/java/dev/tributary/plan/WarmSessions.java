package dev.tributary.plan;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SQL Gateway sessions kept warm for validation, each keyed by what was declared in it: its catalog
 * and database, its properties and its statements (the sources a query reads). Validating a query
 * in a warm session takes its own statements only (the probe view, DESCRIBE and the view's drop in
 * one session, the EXPLAIN in another meanwhile); opening a session, adding the format jar and
 * declaring the sources each time cost more than those. The pool is commons-pool's keyed pool; what
 * is written here is how a session is made, checked and closed.
 *
 * <p>A session serves one validation at a time, at most {@link #MAX_USES} of them and for at most
 * {@link #MAX_AGE} (the gateway closes sessions idle for 10 minutes by default); idle ones are
 * closed after {@link #MAX_IDLE}. A validation that fails in a session that served before is run
 * again in a fresh session, whose answer stands: a session the gateway lost (a restart) must not
 * turn into a refused query. When every session of a key is taken, a fresh one is used and closed.
 */
final class WarmSessions implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WarmSessions.class);

  static final int MAX_USES = 100;
  static final Duration MAX_AGE = Duration.ofMinutes(5);
  static final Duration MAX_IDLE = Duration.ofMinutes(1);

  /** What a session was opened with; equal keys make equal sessions. */
  record Key(String pool, String name, Map<String, String> properties, List<String> declarations) {

    /** A session on the {@value FlinkJobs#DEFAULT_POOL} pool's gateway. */
    Key(String name, Map<String, String> properties, List<String> declarations) {
      this(FlinkJobs.DEFAULT_POOL, name, properties, declarations);
    }
  }

  /** A session and how often it served. */
  static final class Warm {
    final FlinkSql.Session session;
    final Instant opened = Instant.now();
    int uses;

    Warm(FlinkSql.Session session) {
      this.session = session;
    }
  }

  private final FlinkSql sql;
  private final GenericKeyedObjectPool<Key, Warm> pool;

  WarmSessions(FlinkSql sql) {
    this.sql = sql;
    GenericKeyedObjectPoolConfig<Warm> config = new GenericKeyedObjectPoolConfig<>();
    config.setMaxTotalPerKey(4);
    config.setMaxIdlePerKey(4);
    config.setMaxTotal(32);
    config.setBlockWhenExhausted(false);
    config.setTestOnBorrow(true);
    config.setMinEvictableIdleDuration(MAX_IDLE);
    config.setTimeBetweenEvictionRuns(Duration.ofSeconds(30));
    config.setNumTestsPerEvictionRun(-1); // every idle session, each run
    config.setTestWhileIdle(true);
    config.setJmxEnabled(false);
    this.pool = new GenericKeyedObjectPool<>(new Factory(), config);
  }

  /** {@code work} in a session that has run the key's declarations. */
  <T> T with(Key key, Function<FlinkSql.Session, T> work) {
    Warm warm;
    try {
      warm = pool.borrowObject(key);
    } catch (NoSuchElementException e) {
      return fresh(key, work); // every session of the key is taken
    } catch (RuntimeException e) {
      throw e; // the gateway refused a declaration, or could not be reached: as a fresh session
    } catch (Exception e) {
      throw new IllegalStateException(e); // the factory throws runtime exceptions only
    }
    boolean served = warm.uses > 0;
    T result;
    try {
      result = work.apply(warm.session);
    } catch (RuntimeException e) {
      invalidate(key, warm);
      if (served) {
        log.debug("A validation failed in a warm session; it runs again in a fresh one", e);
        return fresh(key, work);
      }
      throw e;
    }
    warm.uses++;
    pool.returnObject(key, warm);
    return result;
  }

  private <T> T fresh(Key key, Function<FlinkSql.Session, T> work) {
    FlinkSql.Session session = open(key);
    try {
      return work.apply(session);
    } finally {
      sql.closeSession(session);
    }
  }

  private FlinkSql.Session open(Key key) {
    FlinkSql.Session session = sql.openSession(key.pool(), key.name(), key.properties());
    try {
      for (String statement : key.declarations()) {
        sql.configure(session, statement);
      }
      return session;
    } catch (RuntimeException e) {
      sql.closeSession(session);
      throw e;
    }
  }

  private void invalidate(Key key, Warm warm) {
    try {
      pool.invalidateObject(key, warm);
    } catch (Exception e) {
      log.debug("Closing a warm session failed", e);
    }
  }

  /** Sessions open now, idle or serving. */
  int open() {
    return pool.getNumActive() + pool.getNumIdle();
  }

  @Override
  public void close() {
    pool.close();
  }

  private final class Factory extends BaseKeyedPooledObjectFactory<Key, Warm> {
    @Override
    public Warm create(Key key) {
      return new Warm(open(key));
    }

    @Override
    public PooledObject<Warm> wrap(Warm warm) {
      return new DefaultPooledObject<>(warm);
    }

    @Override
    public boolean validateObject(Key key, PooledObject<Warm> p) {
      Warm warm = p.getObject();
      return warm.uses < MAX_USES && warm.opened.isAfter(Instant.now().minus(MAX_AGE));
    }

    @Override
    public void destroyObject(Key key, PooledObject<Warm> p) {
      sql.closeSession(p.getObject().session);
    }
  }
}
