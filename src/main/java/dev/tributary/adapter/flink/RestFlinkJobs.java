package dev.tributary.adapter.flink;

import dev.tributary.port.FlinkJobs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/** {@link FlinkJobs} over the JobManager REST API. */
public class RestFlinkJobs implements FlinkJobs {

  private final RestClient http;
  private final StateStorage storage;

  /**
   * @param http a client whose base URL is the JobManager's REST endpoint
   */
  public RestFlinkJobs(RestClient http) {
    this(http, StateStorage.localOnly());
  }

  RestFlinkJobs(RestClient http, StateStorage storage) {
    this.http = http;
    this.storage = storage;
  }

  @Override
  public List<JobSummary> overview() {
    JsonNode answer = FlinkHttp.expectOk(http.get().uri("/jobs/overview"), "list jobs");
    List<JobSummary> jobs = new ArrayList<>();
    for (JsonNode job : answer.path("jobs")) {
      jobs.add(
          new JobSummary(
              job.path("jid").asString(),
              job.path("name").asString(),
              state(job),
              instant(job.path("start-time"))));
    }
    return jobs;
  }

  /**
   * A job's state in {@code /jobs/overview}: Flink's, except that a RUNNING job some of whose tasks
   * are not running yet (nor finished, as a bounded source's are) is {@link JobState#DEPLOYING}.
   * Flink says RUNNING as soon as the job is scheduled; a stop with a savepoint sent then fails
   * with "Not all required tasks are currently running", which {@code EvolutionBench} met when an
   * ALTER followed the table's RUNNING within a few hundred milliseconds.
   */
  static JobState state(JsonNode job) {
    JobState state = JobState.of(job.path("state").asString());
    JsonNode tasks = job.path("tasks");
    if (state != JobState.RUNNING || !tasks.has("total")) {
      return state;
    }
    long settled = tasks.path("running").asLong() + tasks.path("finished").asLong();
    return settled < tasks.path("total").asLong() ? JobState.DEPLOYING : JobState.RUNNING;
  }

  @Override
  public Optional<JobDetail> job(String jobId) {
    FlinkHttp.Answer answer = FlinkHttp.send(http.get().uri("/jobs/{id}", jobId), "read job");
    if (answer.status() == 404) {
      return Optional.empty();
    }
    if (!answer.ok()) {
      throw answer.failure("read job " + jobId);
    }
    JsonNode job = answer.body();
    JobState state = JobState.of(job.path("state").asString());
    Optional<String> cause =
        state == JobState.RUNNING || state == JobState.FINISHED || state == JobState.CANCELED
            ? Optional.empty()
            : failureCause(jobId);
    return Optional.of(
        new JobDetail(
            job.path("jid").asString(),
            job.path("name").asString(),
            state,
            instant(job.path("start-time")),
            cause));
  }

  @Override
  public void triggerStopWithSavepoint(String jobId, String targetDirectory, String triggerId) {
    FlinkHttp.expectOk(
        http.post()
            .uri("/jobs/{id}/stop", jobId)
            .body(
                Map.of("targetDirectory", targetDirectory, "drain", false, "triggerId", triggerId)),
        "stop job " + jobId + " with a savepoint");
  }

  @Override
  public SavepointStatus savepointStatus(String jobId, String triggerId) {
    JsonNode answer =
        FlinkHttp.expectOk(
            http.get().uri("/jobs/{id}/savepoints/{trigger}", jobId, triggerId),
            "read savepoint status of job " + jobId);
    if (!"COMPLETED".equals(answer.path("status").path("id").asString())) {
      return new SavepointStatus(
          SavepointStatus.Phase.IN_PROGRESS, Optional.empty(), Optional.empty());
    }
    JsonNode operation = answer.path("operation");
    Optional<String> location = FlinkHttp.text(operation, "location");
    if (location.isPresent()) {
      return new SavepointStatus(SavepointStatus.Phase.COMPLETED, location, Optional.empty());
    }
    String cause =
        FlinkErrors.rootMessage(operation.path("failure-cause").path("stack-trace").asString(""));
    return new SavepointStatus(SavepointStatus.Phase.FAILED, Optional.empty(), Optional.of(cause));
  }

  @Override
  public void cancel(String jobId) {
    FlinkHttp.Answer answer =
        FlinkHttp.send(http.patch().uri("/jobs/{id}?mode=cancel", jobId), "cancel job " + jobId);
    if (answer.ok() || answer.status() == 404) {
      return;
    }
    // Cancelling a job that already ended is success.
    boolean ended = job(jobId).map(job -> job.state().terminal()).orElse(true);
    if (!ended) {
      throw answer.failure("cancel job " + jobId);
    }
  }

  @Override
  public Optional<Completed> latestCompleted(String jobId) {
    FlinkHttp.Answer answer =
        FlinkHttp.send(
            http.get().uri("/jobs/{id}/checkpoints", jobId), "read checkpoints of job " + jobId);
    if (answer.status() == 404) {
      return Optional.empty();
    }
    if (!answer.ok()) {
      throw answer.failure("read checkpoints of job " + jobId);
    }
    JsonNode latest = answer.body().path("latest");
    JsonNode checkpoint = latest.path("completed");
    JsonNode savepoint = latest.path("savepoint");
    boolean isSavepoint = savepoint.path("id").asLong(-1) > checkpoint.path("id").asLong(-1);
    JsonNode newest = isSavepoint ? savepoint : checkpoint;
    Instant at = instant(newest.path("latest_ack_timestamp"));
    return FlinkHttp.text(newest, "external_path")
        .filter(p -> !p.isBlank() && !p.equals("<checkpoint-not-externally-addressable>"))
        .map(p -> new Completed(p, at, isSavepoint));
  }

  @Override
  public Map<String, Long> operatorCounters(String jobId, String group) {
    FlinkHttp.Answer answer = FlinkHttp.send(http.get().uri("/jobs/{id}", jobId), "read job");
    if (answer.status() == 404) {
      return Map.of();
    }
    if (!answer.ok()) {
      throw answer.failure("read job " + jobId);
    }
    String marker = "." + group + ".";
    Map<String, Long> counters = new TreeMap<>();
    for (JsonNode vertex : answer.body().path("vertices")) {
      String vertexId = vertex.path("id").asString();
      JsonNode available =
          FlinkHttp.expectOk(
              http.get().uri("/jobs/{id}/vertices/{v}/subtasks/metrics", jobId, vertexId),
              "list metrics of job " + jobId);
      List<String> ids = new ArrayList<>();
      for (JsonNode metric : available) {
        String id = metric.path("id").asString();
        if (id.contains(marker)) {
          ids.add(id);
        }
      }
      if (ids.isEmpty()) {
        continue;
      }
      JsonNode values =
          FlinkHttp.expectOk(
              http.get()
                  .uri(
                      "/jobs/{id}/vertices/{v}/subtasks/metrics?get={ids}&agg=sum",
                      jobId,
                      vertexId,
                      String.join(",", ids)),
              "read metrics of job " + jobId);
      for (JsonNode metric : values) {
        String id = metric.path("id").asString();
        String name = id.substring(id.indexOf(marker) + marker.length());
        counters.merge(name, (long) metric.path("sum").asDouble(0), Long::sum);
      }
    }
    return counters;
  }

  @Override
  public Optional<Long> recordsReceived(String jobId, String vertexName) {
    FlinkHttp.Answer answer = FlinkHttp.send(http.get().uri("/jobs/{id}", jobId), "read job");
    if (answer.status() == 404) {
      return Optional.empty();
    }
    if (!answer.ok()) {
      throw answer.failure("read job " + jobId);
    }
    long records = 0;
    boolean found = false;
    for (JsonNode vertex : answer.body().path("vertices")) {
      if (vertex.path("name").asString("").contains(vertexName)) {
        found = true;
        records += vertex.path("metrics").path("read-records").asLong(0);
      }
    }
    return found ? Optional.of(records) : Optional.empty();
  }

  /** Cluster overview (task managers and slots), for the health indicator. */
  /**
   * This cluster's slots ({@code /overview}) and the parallelism a job gets by default ({@code
   * parallelism.default} in {@code /jobmanager/config}, 1 when unset).
   */
  Slots slots() {
    JsonNode cluster = clusterOverview();
    return new Slots(
        cluster.path("slots-total").asInt(),
        cluster.path("slots-available").asInt(),
        defaultParallelism.get(this::readDefaultParallelism));
  }

  /** The cluster's configuration changes with a restart at most: read once a minute. */
  private final Cached<Integer> defaultParallelism =
      new Cached<>(Duration.ofMinutes(1), Clock.systemUTC());

  private int readDefaultParallelism() {
    for (JsonNode entry :
        FlinkHttp.expectOk(http.get().uri("/jobmanager/config"), "read cluster configuration")) {
      if (entry.path("key").asString().equals("parallelism.default")) {
        return Math.max(1, entry.path("value").asInt(1));
      }
    }
    return 1;
  }

  @Override
  public Slots slots(String pool) {
    FlinkJobs.requireDefault(pool);
    return slots();
  }

  public JsonNode clusterOverview() {
    return FlinkHttp.expectOk(http.get().uri("/overview"), "read cluster overview");
  }

  private Optional<String> failureCause(String jobId) {
    JsonNode answer =
        FlinkHttp.expectOk(
            http.get().uri("/jobs/{id}/exceptions?maxExceptions=1", jobId),
            "read exceptions of job " + jobId);
    JsonNode latest = answer.path("exceptionHistory").path("entries").path(0);
    String trace =
        latest.isMissingNode()
            ? answer.path("root-exception").asString("")
            : latest.path("stacktrace").asString("");
    return trace.isBlank() ? Optional.empty() : Optional.of(FlinkErrors.rootMessage(trace));
  }

  private static Instant instant(JsonNode millis) {
    return millis.isNumber() && millis.asLong() > 0 ? Instant.ofEpochMilli(millis.asLong()) : null;
  }

  @Override
  public Optional<Map<String, Map<Integer, Long>>> sourceOffsets(
      String savepointPath, Set<String> topics) {
    return SavepointOffsets.read(storage, savepointPath, topics);
  }

  @Override
  public Optional<String> newestCheckpoint(String jobDirectory) {
    try {
      if (!storage.reaches(jobDirectory)) {
        return Optional.empty();
      }
      return storage.list(jobDirectory).stream()
          .filter(e -> e.name().matches("chk-\\d+"))
          .sorted(
              Comparator.comparingLong(
                      (StateStorage.Entry e) -> Long.parseLong(e.name().substring(4)))
                  .reversed())
          .filter(e -> storage.readMetadata(e.location()).isPresent())
          .map(StateStorage.Entry::location)
          .findFirst();
    } catch (RuntimeException e) {
      return Optional.empty(); // unreachable storage: the recorded checkpoint is all there is
    }
  }

  @Override
  public boolean readsSavepoints(String directory) {
    return storage.reaches(directory);
  }

  @Override
  public Optional<Integer> deleteCheckpoints(String directory) {
    return SavepointFiles.deleteAll(storage, directory);
  }

  @Override
  public Optional<Integer> pruneSavepoints(String directory, int keep, Set<String> protect) {
    return keep == 0 && protect.isEmpty()
        ? SavepointFiles.deleteAll(storage, directory)
        : SavepointFiles.prune(storage, directory, keep, protect);
  }
}
