package dev.tributary.adapter.flink;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkSql;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link FlinkSql} over the SQL Gateway REST API v3: submit a statement, then poll its result
 * pages, following {@code nextResultUri} until {@code EOS}.
 */
public class GatewayFlinkSql implements FlinkSql {

  private final RestClient http;
  private final Duration statementTimeout;
  private final FormatJar formatJar;

  /**
   * @param http a client whose base URL is the gateway's
   */
  public GatewayFlinkSql(RestClient http, Duration statementTimeout) {
    this(http, statementTimeout, null);
  }

  /** With {@code formatJar}, every session opened adds the service's format jar first. */
  GatewayFlinkSql(RestClient http, Duration statementTimeout, FormatJar formatJar) {
    this.http = http;
    this.statementTimeout = statementTimeout;
    this.formatJar = formatJar;
  }

  @Override
  public Session openSession(String name, Map<String, String> properties) {
    JsonNode answer =
        FlinkHttp.expectOk(
            http.post()
                .uri("/v3/sessions")
                .body(Map.of("sessionName", name, "properties", properties)),
            "open a SQL Gateway session");
    Session session = new Session(answer.path("sessionHandle").asString());
    if (formatJar != null) {
      try {
        configure(session, "ADD JAR '" + formatJar.ensureUploaded() + "'");
      } catch (RuntimeException e) {
        closeSession(session);
        throw e;
      }
    }
    return session;
  }

  @Override
  public StatementResult execute(Session session, String statement) {
    JsonNode submitted =
        FlinkHttp.expectOk(
            http.post()
                .uri("/v3/sessions/{session}/statements", session.handle())
                .body(Map.of("statement", statement)),
            "submit a statement");
    String operation = submitted.path("operationHandle").asString();
    try {
      return fetchAll(session, operation, plansOnly(statement));
    } finally {
      closeOperation(session, operation);
    }
  }

  /**
   * The gateway's {@code configure-session}: it runs the statement before it answers, and closes
   * the operation itself. A statement Flink refuses is answered with HTTP 500 and "Failed to
   * configure session", Flink's cause below it. One request, so the request timeout bounds it, not
   * the statement timeout: a declaration plans no job, and a gateway that takes longer is taken for
   * a hung one (retried with backoff).
   */
  @Override
  public void configure(Session session, String statement) {
    FlinkHttp.Answer answer =
        FlinkHttp.send(
            http.post()
                .uri("/v3/sessions/{session}/configure-session", session.handle())
                .body(Map.of("statement", statement)),
            "configure a session");
    if (answer.ok()) {
      return;
    }
    if (answer.errorText().contains(CONFIGURE_FAILED)) {
      throw statementFailed(answer);
    }
    throw answer.failure("configure a session");
  }

  private static final String CONFIGURE_FAILED = "Failed to configure session";

  @Override
  public List<Column> inferSchema(Session session, String query) {
    return QueryProbes.inferSchema(this, session, query);
  }

  @Override
  public ChangelogMode changelogMode(Session session, String query) {
    return QueryProbes.changelogMode(this, session, query);
  }

  @Override
  public void closeSession(Session session) {
    // A session that already expired or was closed is what we wanted.
    FlinkHttp.send(
        http.delete().uri("/v3/sessions/{session}", session.handle()), "close a session");
  }

  /**
   * Whether the cluster loads this project's formats: a session (which adds the delivered jar)
   * plans a read of a Kafka table in {@code json-confluent}, which fails with Flink's "Could not
   * find any factory" when the format is missing. Nothing runs and nothing is connected to. Answers
   * "loadable" or the reason it is not; {@code formatJar} says where the jar came from.
   */
  public String probeFormats() {
    Session session = openSession("tributary-format-probe", Map.of());
    try {
      execute(
          session,
          "CREATE TEMPORARY TABLE `tributary_format_probe` (x INT) WITH ('connector' = 'kafka',"
              + " 'topic' = 'tributary-format-probe', 'properties.bootstrap.servers' ="
              + " '127.0.0.1:9', 'scan.startup.mode' = 'earliest-offset', 'format' ="
              + " 'json-confluent')");
      execute(session, "EXPLAIN SELECT * FROM `tributary_format_probe`");
      return "loadable";
    } catch (StatementFailedException e) {
      return "not loadable: " + e.getMessage();
    } finally {
      closeSession(session);
    }
  }

  /** Where the format jar sessions add comes from, or null when the cluster's lib/ must hold it. */
  public String formatJar() {
    return formatJar == null ? null : formatJar.location();
  }

  /** The gateway's Flink version, from its {@code /v3/info}. */
  @Override
  public Optional<String> version(String pool) {
    String version =
        FlinkHttp.expectOk(http.get().uri("/v3/info"), "read gateway info")
            .path("version")
            .asString();
    return version.isBlank() ? Optional.empty() : Optional.of(version);
  }

  /** Product name and version, for the health indicator. */
  public String info() {
    JsonNode info = FlinkHttp.expectOk(http.get().uri("/v3/info"), "read gateway info");
    return info.path("productName").asString() + " " + info.path("version").asString();
  }

  /**
   * Pauses between fetches of a result that is not ready: 2, 4, 8, 16, 32, 64, 128, then every 200
   * ms. A job's INSERT on a busy gateway (seconds) is asked five times a second: with the pauses
   * capped at 50 ms, and then at 25 ms among other changes, the apply of 200 tables took 256 s and
   * 213-275 s, against 154-170 s.
   */
  static final long FIRST_PAUSE_MS = 2;

  private static final long MAX_PAUSE_MS = 200;

  /**
   * A statement that only plans or reads the catalog (EXPLAIN, DESCRIBE, SHOW) runs no job and ends
   * within a few hundred milliseconds: its result is asked for at most {@value
   * #PLANS_ONLY_PAUSE_MS} ms apart, where the doubling pauses answered an EXPLAIN of 70 ms at 126
   * ms and one of 130 ms at 254 ms. The user's CREATE waits for it (the accepting call's
   * validation). A job's INSERT or SELECT keeps the doubling pauses above.
   */
  private static final long PLANS_ONLY_PAUSE_MS = 16;

  private static final Pattern PLANS_ONLY =
      Pattern.compile("\\s*(EXPLAIN|DESCRIBE|DESC|SHOW)\\b", Pattern.CASE_INSENSITIVE);

  static boolean plansOnly(String statement) {
    return PLANS_ONLY.matcher(statement).lookingAt();
  }

  /** The pause after {@code pause} between two fetches of a result that is not ready. */
  static long nextPause(long pause, boolean plansOnly) {
    return Math.min(pause * 2, plansOnly ? PLANS_ONLY_PAUSE_MS : MAX_PAUSE_MS);
  }

  private StatementResult fetchAll(Session session, String operation, boolean plansOnly) {
    long deadline = System.nanoTime() + statementTimeout.toNanos();
    String uri =
        "/v3/sessions/"
            + session.handle()
            + "/operations/"
            + operation
            + "/result/0?rowFormat=JSON";
    List<String> columns = List.of();
    List<List<Object>> rows = new ArrayList<>();
    Optional<String> jobId = Optional.empty();
    long pause = FIRST_PAUSE_MS;
    while (true) {
      FlinkHttp.Answer answer = FlinkHttp.send(http.get().uri(uri), "fetch a statement result");
      if (!answer.ok()) {
        throw statementFailed(answer);
      }
      JsonNode page = answer.body();
      String type = page.path("resultType").asString();
      Optional<String> pageJobId = FlinkHttp.text(page, "jobID");
      if (pageJobId.isPresent()) {
        jobId = pageJobId;
      }
      if ("PAYLOAD".equals(type)) {
        JsonNode results = page.path("results");
        if (columns.isEmpty()) {
          columns = new ArrayList<>();
          for (JsonNode column : results.path("columns")) {
            columns.add(column.path("name").asString());
          }
        }
        for (JsonNode row : results.path("data")) {
          rows.add(values(row.path("fields")));
        }
        pause = FIRST_PAUSE_MS;
      }
      if ("EOS".equals(type) || page.path("nextResultUri").isMissingNode()) {
        if (jobId.isEmpty() && columns.equals(List.of("job id")) && !rows.isEmpty()) {
          jobId = Optional.of(String.valueOf(rows.get(0).get(0)));
        }
        return new StatementResult(List.copyOf(columns), List.copyOf(rows), jobId);
      }
      if (System.nanoTime() > deadline) {
        throw new DependencyUnavailableException(
            ExternalSystem.FLINK,
            "No result from the SQL Gateway within " + statementTimeout,
            null);
      }
      if ("NOT_READY".equals(type)) {
        sleep(pause);
        pause = nextPause(pause, plansOnly);
      }
      uri = page.path("nextResultUri").asString();
    }
  }

  private static StatementFailedException statementFailed(FlinkHttp.Answer answer) {
    List<String> causes = FlinkErrors.causes(answer.errorText());
    int[] position = FlinkErrors.position(causes).orElse(new int[] {0, 0});
    return new StatementFailedException(answer.errorMessage(), position[0], position[1], causes);
  }

  private void closeOperation(Session session, String operation) {
    FlinkHttp.send(
        http.delete()
            .uri(
                "/v3/sessions/{session}/operations/{operation}/close", session.handle(), operation),
        "close an operation");
  }

  private static List<Object> values(JsonNode fields) {
    List<Object> values = new ArrayList<>();
    for (JsonNode field : fields) {
      values.add(field.isNull() ? null : JsonMapper.shared().convertValue(field, Object.class));
    }
    return values;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DependencyUnavailableException(ExternalSystem.FLINK, "Interrupted", e);
    }
  }
}
