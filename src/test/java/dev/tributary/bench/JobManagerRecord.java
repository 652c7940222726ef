package dev.tributary.bench;

import dev.tributary.local.LocalStack;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
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
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(LocalStack.get().flinkRestUrl().resolve("/jobs/" + id))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    JsonNode job = JsonMapper.shared().readTree(response.body());
    long at = job.path("timestamps").path(state).asLong();
    if (at <= 0) {
      throw new IllegalStateException(
          "job " + id + " has no " + state + " time: " + response.body());
    }
    return Instant.ofEpochMilli(at);
  }
}
