package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.port.FlinkJobs.JobState;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A job's state as {@code /jobs/overview} gives it, with its tasks' counts. */
class JobOverviewStateTest {

  @Test
  void shouldCallARunningJobDeployingUntilEveryTaskRunsOrFinished() {
    assertThat(RestFlinkJobs.state(job("RUNNING", 3, 1, 0))).isEqualTo(JobState.DEPLOYING);
    assertThat(RestFlinkJobs.state(job("RUNNING", 3, 3, 0))).isEqualTo(JobState.RUNNING);
    // A bounded source's task finishes while the rest of the job runs.
    assertThat(RestFlinkJobs.state(job("RUNNING", 3, 2, 1))).isEqualTo(JobState.RUNNING);
  }

  @Test
  void shouldKeepFlinksStateOtherwise() {
    assertThat(RestFlinkJobs.state(job("FAILED", 3, 0, 0))).isEqualTo(JobState.FAILED);
    assertThat(RestFlinkJobs.state(job("INITIALIZING", 3, 0, 0))).isEqualTo(JobState.INITIALIZING);
    assertThat(RestFlinkJobs.state(read("{\"jid\": \"j\", \"state\": \"RUNNING\"}")))
        .as("no task counts: Flink's word")
        .isEqualTo(JobState.RUNNING);
  }

  /** A job of the overview as Flink 2.2 writes it, with {@code total} tasks. */
  private static JsonNode job(String state, int total, int running, int finished) {
    int deploying = total - running - finished;
    return read(
        """
        {"jid": "j", "name": "n", "state": "%s", "start-time": 1, "tasks": {
          "running": %d, "canceling": 0, "canceled": 0, "total": %d, "created": 0,
          "scheduled": 0, "deploying": %d, "reconciling": 0, "finished": %d,
          "initializing": 0, "failed": 0}}"""
            .formatted(state, running, total, deploying, finished));
  }

  private static JsonNode read(String json) {
    return JsonMapper.shared().readTree(json);
  }
}
