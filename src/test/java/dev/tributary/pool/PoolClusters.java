package dev.tributary.pool;

import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import java.net.URI;
import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the compute pool tests ask of a cluster and of the example database. */
final class PoolClusters {

  static final String TABLES = Api.EXAMPLE_TABLES;

  private PoolClusters() {}

  /** Drops the example database's tables and waits until the pool tests' ones are gone. */
  static void dropTables(Api api, JdbcTemplate jdbc) {
    api.dropMaterializedTables("examples", "marketplace");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                jdbc.queryForObject(
                        "SELECT count(*) FROM materialized_table WHERE name LIKE 'pool\\_%'",
                        Long.class)
                    == 0);
  }

  /** The jobs of the cluster at {@code restUrl}, as its JobManager lists them. */
  static JsonNode jobsOf(URI restUrl) {
    return JsonMapper.shared()
        .readTree(
            RestClient.create(restUrl.toString())
                .get()
                .uri("/jobs/overview")
                .retrieve()
                .body(String.class))
        .path("jobs");
  }

  static String jobId(Api api, String table) {
    return api.get(TABLES + table).body().path("status").path("job").path("id").asString();
  }

  /**
   * The job's state on the cluster at {@code restUrl}, or null when that cluster does not know it.
   */
  static String state(URI restUrl, String jobId) {
    for (JsonNode job : jobsOf(restUrl)) {
      if (job.path("jid").asString().equals(jobId)) {
        return job.path("state").asString();
      }
    }
    return null;
  }

  /** Live jobs on the cluster at {@code restUrl} whose name is the table's. */
  static long liveJobsNamedFor(URI restUrl, Api api, String table) {
    String id = api.get(TABLES + table).body().path("metadata").path("uid").asString();
    long live = 0;
    for (JsonNode job : jobsOf(restUrl)) {
      String state = job.path("state").asString();
      if (job.path("name").asString().contains(id)
          && !state.equals("FINISHED")
          && !state.equals("CANCELED")
          && !state.equals("FAILED")) {
        live++;
      }
    }
    return live;
  }
}
