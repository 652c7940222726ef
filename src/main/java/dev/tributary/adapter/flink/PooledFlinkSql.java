package dev.tributary.adapter.flink;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL Gateways of every compute pool as one {@link FlinkSql}: a session is opened on its pool's
 * gateway and every later call with it goes there; the job a statement submits is remembered as
 * that pool's, for the JobManager calls that follow.
 */
public class PooledFlinkSql implements FlinkSql {

  private final PoolClients pools;

  PooledFlinkSql(PoolClients pools) {
    this.pools = pools;
  }

  private GatewayFlinkSql gateway(Session session) {
    return pools.of(pools.poolOf(session)).sql();
  }

  @Override
  public Session openSession(String name, Map<String, String> properties) {
    return openSession(FlinkJobs.DEFAULT_POOL, name, properties);
  }

  @Override
  public Session openSession(String pool, String name, Map<String, String> properties) {
    PoolClients.Clients clients = pools.of(pool);
    Integer parallelism = clients.cluster().parallelism();
    Map<String, String> asked = properties;
    if (parallelism != null && !properties.containsKey("parallelism.default")) {
      asked = new LinkedHashMap<>(properties);
      asked.put("parallelism.default", String.valueOf(parallelism));
    }
    Session session = clients.sql().openSession(name, asked);
    pools.opened(session, pool);
    return session;
  }

  @Override
  public StatementResult execute(Session session, String statement) {
    String pool = pools.poolOf(session);
    StatementResult result = pools.of(pool).sql().execute(session, statement);
    result.jobId().ifPresent(id -> pools.submitted(id, pool));
    return result;
  }

  @Override
  public void configure(Session session, String statement) {
    gateway(session).configure(session, statement);
  }

  @Override
  public List<Column> inferSchema(Session session, String query) {
    return gateway(session).inferSchema(session, query);
  }

  @Override
  public ChangelogMode changelogMode(Session session, String query) {
    return gateway(session).changelogMode(session, query);
  }

  @Override
  public Optional<String> version(String pool) {
    return pools.of(pool).sql().version(pool);
  }

  @Override
  public void closeSession(Session session) {
    try {
      gateway(session).closeSession(session);
    } finally {
      pools.closed(session);
    }
  }

  /** The configured cluster's gateway, for the health indicator. */
  GatewayFlinkSql configured() {
    return pools.configured().sql();
  }
}
