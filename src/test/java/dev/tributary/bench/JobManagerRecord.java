package dev.tributary.bench;

import dev.tributary.local.LocalStack;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the local JobManager recorded of a job ({@code GET /jobs/{id}}): the benchmarks split their
 * waterfalls at Flink's own times rather than at the service's events.
 */
final class JobManagerRecord {

  private JobManagerRecord() {}

  /** When job {@code id} reached {@code state} ({@code RUNNING}, {@code FINISHED} ...). */
  static Instant at(String id, String state) throws IOException, InterruptedException {
    JsonNode job = job(id);
    long at = job.path("timestamps").path(state).asLong();
    if (at <= 0) {
      throw new IllegalStateException("job " + id + " has no " + state + " time: " + job);
    }
    return Instant.ofEpochMilli(at);
  }

  /**
   * How long each vertex of job {@code id} ran, as the JobManager recorded it, by the first words
   * of its name (a vertex's name is its operators' descriptions), longest first.
   */
  static Map<String, Long> vertices(String id) throws IOException, InterruptedException {
    Map<String, Long> durations = new LinkedHashMap<>();
    List<JsonNode> vertices = new ArrayList<>();
    job(id).path("vertices").forEach(vertices::add);
    vertices.sort(Comparator.comparingLong((JsonNode v) -> -v.path("duration").asLong()));
    for (JsonNode vertex : vertices) {
      String name = vertex.path("name").asString();
      durations.put(
          name.length() > 40 ? name.substring(0, 40) + "..." : name,
          vertex.path("duration").asLong());
    }
    return durations;
  }

  private static JsonNode job(String id) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(LocalStack.get().flinkRestUrl().resolve("/jobs/" + id))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return JsonMapper.shared().readTree(response.body());
  }
}
