package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tributary.TributaryIT;
import dev.tributary.adapter.kafka.KafkaTopics;
import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.local.ExampleCatalog;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.SavepointStatus;
import dev.tributary.port.FlinkSql.ChangelogMode;
import dev.tributary.port.FlinkSql.Column;
import dev.tributary.port.FlinkSql.RowKind;
import dev.tributary.port.FlinkSql.Session;
import dev.tributary.port.FlinkSql.StatementFailedException;
import dev.tributary.port.FlinkSql.StatementResult;
import dev.tributary.port.Topics.TopicSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.json.JsonMapper;

/** The SQL Gateway and JobManager adapters against the real MiniCluster and its gateway. */
@TributaryIT
class FlinkIT {

  static final String HIGH_VALUE_ORDERS =
      "SELECT order_id, customer_id, price FROM examples.marketplace.orders WHERE price > 50.00";

  /** The configured cluster's adapters themselves, not the routers over every pool. */
  @Autowired PoolClients pools;

  @Autowired KafkaTopics topics;
  @Autowired CatalogService catalogs;

  GatewayFlinkSql sql;
  RestFlinkJobs jobs;
  Session session;

  @BeforeEach
  void declareExampleCatalog() {
    sql = pools.configured().sql();
    jobs = pools.configured().jobs();
    session = sql.openSession("it-" + UUID.randomUUID(), Map.of());
    sql.execute(session, "CREATE CATALOG examples WITH ('type' = 'generic_in_memory')");
    sql.execute(session, "CREATE DATABASE examples.marketplace");
    for (SourceTable table :
        catalogs.sourceTables(ExampleCatalog.CATALOG, ExampleCatalog.DATABASE)) {
      sql.execute(session, table.getDdl());
    }
  }

  @AfterEach
  void closeSession() {
    sql.closeSession(session);
  }

  @Test
  void shouldInferOutputSchemaWithoutRunningTheQuery() {
    List<Column> columns =
        sql.inferSchema(
            session,
            "SELECT order_id, customer_id, price, event_time,"
                + " CAST(1 AS BIGINT) AS answer FROM examples.marketplace.orders");

    assertThat(columns)
        .containsExactly(
            new Column("order_id", "STRING", true),
            new Column("customer_id", "INT", true),
            new Column("price", "DOUBLE", true),
            new Column("event_time", "TIMESTAMP(3)", true),
            new Column("answer", "BIGINT", false));
    assertThat(jobs.overview()).noneMatch(job -> job.name().contains("tributary_probe"));
  }

  @Test
  void shouldTellAppendOnlyFromUpdatingQueries() {
    ChangelogMode append = sql.changelogMode(session, HIGH_VALUE_ORDERS);
    ChangelogMode updating =
        sql.changelogMode(
            session,
            "SELECT customer_id, COUNT(*) AS orders FROM examples.marketplace.orders"
                + " GROUP BY customer_id");

    assertThat(append.insertOnly()).isTrue();
    assertThat(updating.insertOnly()).isFalse();
    assertThat(updating.kinds()).contains(RowKind.UPDATE_AFTER);
  }

  @Test
  void shouldReportFlinksMessageAndPositionInsteadOfAStackTrace() {
    assertThatThrownBy(
            () -> sql.inferSchema(session, "SELECT nope FROM examples.marketplace.orders"))
        .isInstanceOfSatisfying(
            StatementFailedException.class,
            e -> {
              assertThat(e.getMessage()).isEqualTo("Column 'nope' not found in any table");
              assertThat(e.line()).isEqualTo(1);
              assertThat(e.column()).isEqualTo(8);
              assertThat(e.causes()).isNotEmpty().noneMatch(c -> c.contains("\tat "));
            });
  }

  @Test
  void shouldReportParseErrorsWithLineAndColumn() {
    assertThatThrownBy(() -> sql.execute(session, "SELECT order_id\nFROM FROM orders"))
        .isInstanceOfSatisfying(StatementFailedException.class, FlinkIT::isTheSecondFromRefused);
  }

  /** Flink's parse error of a second FROM at line 2, column 6, without a stack trace. */
  private static void isTheSecondFromRefused(StatementFailedException e) {
    assertThat(e.getMessage()).contains("'FROM'").contains("line 2, column 6");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(6);
    assertThat(e.causes()).noneMatch(c -> c.contains("\tat "));
  }

  /**
   * A declaration made with one configure-session call is there for the session's next statement;
   * what Flink refuses there comes with its message and position, and a statement that is not a
   * declaration is refused rather than run.
   */
  @Test
  void shouldConfigureTheSessionInOneCallAndReportWhatFlinkRefuses() {
    sql.configure(
        session,
        "CREATE TEMPORARY VIEW big_orders AS SELECT order_id, price FROM"
            + " examples.marketplace.orders WHERE price > 100");

    assertThat(sql.inferSchema(session, "SELECT * FROM big_orders"))
        .extracting(Column::name)
        .containsExactly("order_id", "price");
    assertThatThrownBy(
            () ->
                sql.configure(
                    session,
                    "CREATE TEMPORARY VIEW v AS SELECT order_id\nFROM FROM examples.marketplace.orders"))
        .isInstanceOfSatisfying(StatementFailedException.class, FlinkIT::isTheSecondFromRefused);
    assertThatThrownBy(
            () -> sql.configure(session, "CREATE TEMPORARY VIEW w AS SELECT nope FROM big_orders"))
        .isInstanceOfSatisfying(
            StatementFailedException.class,
            e -> assertThat(e.getMessage()).isEqualTo("Column 'nope' not found in any table"));
    assertThatThrownBy(() -> sql.configure(session, "SELECT 1"))
        .isInstanceOfSatisfying(
            StatementFailedException.class,
            e -> assertThat(e.getMessage()).contains("Unsupported statement for configuring"));
  }

  @Test
  void shouldRunAJobUnderAFixedIdAndRefuseASecondSubmissionOfIt() {
    String fixed = UUID.randomUUID().toString().replace("-", "");
    sql.execute(session, "SET '$internal.pipeline.job-id' = '" + fixed + "'");
    String sink = sinkTopic();

    StatementResult first =
        sql.execute(session, "INSERT INTO " + sinkTable(sink) + " " + HIGH_VALUE_ORDERS);

    assertThat(first.jobId()).hasValue(fixed);
    assertThatThrownBy(
            () -> sql.execute(session, "INSERT INTO " + sinkTable(sink) + " " + HIGH_VALUE_ORDERS))
        .isInstanceOfSatisfying(
            StatementFailedException.class,
            e -> {
              assertThat(e.getMessage())
                  .containsAnyOf("DuplicateJobSubmission", "has already been submitted");
            });
    assertThat(jobs.overview().stream().filter(j -> j.id().equals(fixed))).hasSize(1);
    sql.execute(session, "RESET '$internal.pipeline.job-id'");
    jobs.cancel(fixed);
  }

  @Test
  void shouldRunInsertThenStopItWithASavepoint() {
    String sink = sinkTopic();
    String name = "it-" + UUID.randomUUID();
    sql.execute(session, "SET 'pipeline.name' = '" + name + "'");

    StatementResult insert =
        sql.execute(session, "INSERT INTO " + sinkTable(sink) + " " + HIGH_VALUE_ORDERS);

    String jobId = insert.jobId().orElseThrow();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                jobs.overview().stream()
                    .anyMatch(
                        j ->
                            j.id().equals(jobId)
                                && j.name().equals(name)
                                && j.state() == JobState.RUNNING));
    List<String> rows =
        TopicReader.values(
            LocalStack.get().kafkaBootstrapServers(), sink, 5, Duration.ofSeconds(60), false);
    assertThat(rows).hasSizeGreaterThanOrEqualTo(5);
    assertThat(rows)
        .allSatisfy(
            row ->
                assertThat(JsonMapper.shared().readTree(row).path("price").asDouble())
                    .isGreaterThan(50));

    String trigger = UUID.randomUUID().toString().replace("-", "");
    jobs.triggerStopWithSavepoint(jobId, LocalStack.get().savepointDir(), trigger);
    // The same trigger again (a retry after a timeout) is the same operation, not a second stop.
    jobs.triggerStopWithSavepoint(jobId, LocalStack.get().savepointDir(), trigger);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                jobs.savepointStatus(jobId, trigger).phase() != SavepointStatus.Phase.IN_PROGRESS);

    SavepointStatus status = jobs.savepointStatus(jobId, trigger);
    assertThat(status.phase()).isEqualTo(SavepointStatus.Phase.COMPLETED);
    assertThat(status.location()).get().asString().contains("savepoint-");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> jobs.job(jobId).orElseThrow().state() == JobState.FINISHED);
  }

  @Test
  void shouldCancelAJobAndTreatCancellingAgainAsSuccess() {
    String sink = sinkTopic();
    String jobId =
        sql.execute(session, "INSERT INTO " + sinkTable(sink) + " " + HIGH_VALUE_ORDERS)
            .jobId()
            .orElseThrow();
    await().atMost(Duration.ofSeconds(60)).until(() -> state(jobId) == JobState.RUNNING);

    jobs.cancel(jobId);
    await().atMost(Duration.ofSeconds(30)).until(() -> state(jobId) == JobState.CANCELED);
    jobs.cancel(jobId);

    assertThat(state(jobId)).isEqualTo(JobState.CANCELED);
    jobs.cancel("00000000000000000000000000000000");
  }

  @Test
  void shouldReportTheRootCauseOfAFailedJob() {
    String sink = sinkTopic();
    sql.execute(session, "SET 'restart-strategy.type' = 'none'");
    String jobId =
        sql.execute(
                session,
                "INSERT INTO "
                    + sinkTable(sink)
                    + " SELECT order_id, CAST(order_id AS INT), price FROM examples.marketplace.orders")
            .jobId()
            .orElseThrow();

    await().atMost(Duration.ofSeconds(60)).until(() -> state(jobId) == JobState.FAILED);

    String cause = jobs.job(jobId).orElseThrow().failureCause().orElseThrow();
    // The root cause, not "Could not forward element" or another wrapper.
    assertThat(cause)
        .startsWith("For input string: '")
        .doesNotContain("\tat ")
        .doesNotContain("\n");
  }

  @Test
  void shouldAnswerEmptyForAnUnknownJob() {
    assertThat(jobs.job("00000000000000000000000000000000")).isEmpty();
  }

  private JobState state(String jobId) {
    return jobs.job(jobId).map(j -> j.state()).orElse(JobState.UNKNOWN);
  }

  private String sinkTopic() {
    String topic = "it-sink-" + UUID.randomUUID();
    topics.ensure(new TopicSpec(topic, 1, Map.of()));
    return topic;
  }

  private String sinkTable(String topic) {
    String table = "sink_" + UUID.randomUUID().toString().replace("-", "");
    sql.execute(
        session,
        "CREATE TEMPORARY TABLE "
            + table
            + " (order_id STRING, customer_id INT, price DOUBLE) WITH ("
            + "'connector' = 'kafka', 'topic' = '"
            + topic
            + "', 'properties.bootstrap.servers' = '"
            + LocalStack.get().kafkaBootstrapServers()
            + "', 'format' = 'json')");
    return table;
  }
}
