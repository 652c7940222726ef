package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlinkErrorsTest {

  // Shaped as the SQL Gateway's errors[1] for a statement that names a missing column.
  static final String VALIDATION_TRACE =
      """
      org.apache.flink.runtime.rest.handler.RestHandlerException: Failed to fetch results.
      \tat org.apache.flink.table.gateway.rest.handler.statement.FetchResultsHandler.handleRequest(FetchResultsHandler.java:91)
      \tat java.base/java.lang.Thread.run(Thread.java:840)
      Caused by: org.apache.flink.table.gateway.service.utils.SqlExecutionException: Failed to execute the operation 4c6d.
      \tat org.apache.flink.table.gateway.service.operation.OperationManager$Operation.processThrowable(OperationManager.java:415)
      Caused by: org.apache.flink.table.api.ValidationException: SQL validation failed. From line 1, column 8 to line 1, column 11: Column 'nope' not found in any table
      \tat org.apache.flink.table.planner.calcite.FlinkPlannerImpl.validate(FlinkPlannerImpl.scala:200)
      Caused by: org.apache.calcite.runtime.CalciteContextException: From line 1, column 8 to line 1, column 11: Column 'nope' not found in any table
      \tat java.base/jdk.internal.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method)
      Caused by: org.apache.calcite.sql.validate.SqlValidatorException: Column 'nope' not found in any table
      \tat java.base/jdk.internal.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method)
      \t... 45 more
      """;

  @Test
  void shouldReturnTheRootCauseMessageWithoutClassNames() {
    assertThat(FlinkErrors.rootMessage(VALIDATION_TRACE))
        .isEqualTo("Column 'nope' not found in any table");
  }

  @Test
  void shouldListTheCauseChainOutermostFirst() {
    List<String> causes = FlinkErrors.causes(VALIDATION_TRACE);

    assertThat(causes).hasSize(5);
    assertThat(causes.get(0)).isEqualTo("Failed to fetch results.");
    assertThat(causes).noneMatch(c -> c.contains("\tat") || c.startsWith("org."));
  }

  @Test
  void shouldFindThePositionNearestTheRootCause() {
    int[] position = FlinkErrors.position(FlinkErrors.causes(VALIDATION_TRACE)).orElseThrow();

    assertThat(position).containsExactly(1, 8);
  }

  @Test
  void shouldSkipARootCauseWithoutMessage() {
    String trace =
        """
        org.apache.flink.runtime.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy
        Caused by: java.lang.NumberFormatException: For input string: "abc"
        Caused by: java.lang.NullPointerException
        """;

    // A cause without a message is skipped; its class name is no message either.
    assertThat(FlinkErrors.rootMessage(trace)).isEqualTo("For input string: \"abc\"");
    assertThat(FlinkErrors.rootMessage("Caused by: java.lang.IllegalStateException: \n"))
        .isEqualTo("Flink gave no error message");
  }

  @Test
  void shouldRemoveTheClassOfAFailureTypeNotNamedException() {
    // Shaped as a FAIL UPDATE expectation fails its job: a nested throwable class of a format.
    String trace =
        """
        org.apache.flink.runtime.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy
        Caused by: com.example.format.Checks$Violation: Expectation 'positive' failed: {"id":1}
        \tat com.example.format.Checks.check(Checks.java:75)
        """;

    assertThat(FlinkErrors.rootMessage(trace))
        .isEqualTo("Expectation 'positive' failed: {\"id\":1}");
  }

  @Test
  void shouldFallBackToTheFirstLineOfAnUnstructuredError() {
    assertThat(FlinkErrors.rootMessage("Job 42 not found\nmore text"))
        .isEqualTo("Job 42 not found");
    assertThat(FlinkErrors.position(FlinkErrors.causes("no position here"))).isEmpty();
  }

  @Test
  void shouldReadTheServerSideTraceThatARestClientErrorCarries() {
    String trace =
        String.join(
            "\n",
            "org.apache.flink.table.gateway.api.utils.SqlGatewayException: Failed to fetchResults.",
            "Caused by: org.apache.flink.util.FlinkException: Failed to submit ExecutionPlan.",
            "Caused by: org.apache.flink.runtime.rest.util.RestClientException: [Internal server"
                + " error., <Exception on server side:",
            "org.apache.flink.runtime.client.DuplicateJobSubmissionException: Job has already been"
                + " submitted.",
            "\tat org.apache.flink.runtime.dispatcher.Dispatcher.submitJob(Dispatcher.java:1)",
            "",
            "End of exception on server side>]");

    assertThat(FlinkErrors.rootMessage(trace)).isEqualTo("Job has already been submitted.");
    assertThat(FlinkErrors.causes(trace)).hasSize(4);
  }
}
