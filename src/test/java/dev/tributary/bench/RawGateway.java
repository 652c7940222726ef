package dev.tributary.bench;

import static org.awaitility.Awaitility.await;

import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.local.LocalStack;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;

/** What a user would do without Tributary: topic, session, source tables, sink table, INSERT. */
final class RawGateway {

  private final FlinkSql sql;
  private final Topics topics;
  private final CatalogService catalogs;

  RawGateway(FlinkSql sql, Topics topics, CatalogService catalogs) {
    this.sql = sql;
    this.topics = topics;
    this.catalogs = catalogs;
  }

  /** Submits {@code query} into topic {@code topic}; returns the job id. */
  String submit(String topic, String columns, String query, Map<String, String> settings) {
    return submit(topic, columns, query, settings, null);
  }

  /** The same, with each step a phase of {@code phases} (when given). */
  String submit(
      String topic, String columns, String query, Map<String, String> settings, Waterfall phases) {
    long at = System.nanoTime();
    topics.ensure(new Topics.TopicSpec(topic, 6, Map.of("cleanup.policy", "delete")));
    at = phase(phases, "topic", at);
    FlinkSql.Session session = sql.openSession("raw", settings);
    at = phase(phases, "session", at);
    try {
      sql.execute(session, "CREATE CATALOG examples WITH ('type' = 'generic_in_memory')");
      sql.execute(session, "CREATE DATABASE examples.marketplace");
      for (SourceTable table : catalogs.sourceTables("examples", "marketplace")) {
        sql.execute(session, table.getDdl());
      }
      sql.execute(session, "SET 'execution.checkpointing.interval' = '5 s'");
      sql.execute(
          session,
          "CREATE TEMPORARY TABLE sink ("
              + columns
              + ") WITH ('connector' = 'kafka', 'topic' = '"
              + topic
              + "', 'properties.bootstrap.servers' = '"
              + LocalStack.get().kafkaBootstrapServers()
              + "', 'value.format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',"
              + " 'sink.transactional-id-prefix' = '"
              + topic
              + "-"
              + System.nanoTime()
              + "')");
      at = phase(phases, "ddl", at);
      String job = sql.execute(session, "INSERT INTO sink " + query).jobId().orElseThrow();
      phase(phases, "insert", at);
      return job;
    } finally {
      at = System.nanoTime();
      sql.closeSession(session);
      phase(phases, "close", at);
    }
  }

  /** Waits, polling the JobManager every 50 ms, until job {@code id} is RUNNING. */
  static void awaitRunning(FlinkJobs jobs, String id) {
    awaitJob(jobs, id, state -> state == FlinkJobs.JobState.RUNNING, true);
  }

  /**
   * Until job {@code id} has ended (terminal, or no longer listed): a round's teardown (a cancel, a
   * table's drop) is then not under way while the next round is timed.
   */
  static void awaitEnded(FlinkJobs jobs, String id) {
    awaitJob(jobs, id, state -> !state.terminal(), false);
  }

  /** Polls the JobManager's overview every 50 ms until job {@code id} is (or is not) listed so. */
  private static void awaitJob(
      FlinkJobs jobs, String id, Predicate<FlinkJobs.JobState> state, boolean listed) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                jobs.overview().stream().anyMatch(j -> j.id().equals(id) && state.test(j.state()))
                    == listed);
  }

  private static long phase(Waterfall phases, String name, long since) {
    long now = System.nanoTime();
    if (phases != null) {
      phases.phase(name, (now - since) / 1e6);
    }
    return now;
  }
}
