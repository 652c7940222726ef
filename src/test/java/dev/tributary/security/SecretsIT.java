package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import dev.tributary.local.TopicReader;
import dev.tributary.sql.KafkaClientOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A source table that logs in to Kafka with a password (SASL/PLAIN on the local broker's own
 * listener): the job reads through it, and the password is in no answer, no table of the store and
 * no line the service logs.
 */
@TributaryIT
class SecretsIT {

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  private static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  @Test
  void shouldNeverShowASecretWhileTheJobStillAuthenticatesWithIt() throws Exception {
    String[] sasl = LocalStack.get().kafkaSasl();
    String servers = sasl[0];
    String password = sasl[2];
    String plain = LocalStack.get().kafkaBootstrapServers();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(logs);
    List<String> answers = new ArrayList<>();
    Api api = new Api(port);
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, plain));
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, plain),
                new StringSerializer(),
                new StringSerializer())) {
      admin.createTopics(List.of(new NewTopic("sec_sasl_in", 1, (short) 1))).all().get();
      for (int i = 0; i < 20; i++) {
        producer.send(
            new ProducerRecord<>("sec_sasl_in", "{\"id\":" + i + ",\"v\":\"r" + i + "\"}"));
      }
      producer.flush();

      // The listener really checks the password: a wrong one is refused.
      assertThatThrownBy(
              () ->
                  TopicReader.values(
                      servers, "sec_sasl_in", 1, Duration.ofSeconds(5), false, jaas(sasl[1], "no")))
          .hasMessageContaining("Authentication failed");

      String create =
          "CREATE TABLE sasl_src (id INT, v STRING) WITH ('connector' = 'kafka', 'topic' ="
              + " 'sec_sasl_in', 'properties.bootstrap.servers' = '"
              + servers
              + "', 'properties.security.protocol' = 'SASL_PLAINTEXT',"
              + " 'properties.sasl.mechanism' = 'PLAIN', 'properties.sasl.jaas.config' = '"
              + jaas(sasl[1], password).replace("'", "''")
              + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')";
      Answer created = api.sql(create, "examples", "secrets");
      answers.add(created.text());
      assertThat(created.status()).as(created.text()).isEqualTo(200);
      // A statement that fails to parse, with the secret in it: the snippet masks it.
      Answer broken =
          api.sql(
              "CREATE TABLE broken (id INT) WITH ('properties.sasl.jaas.config' = '"
                  + jaas(sasl[1], password).replace("'", "''")
                  + "' 'format' = 'json')",
              "examples",
              "secrets");
      answers.add(broken.text());
      assertThat(broken.status()).isEqualTo(400);
      assertThat(broken.body().path("snippet").asString()).contains("******");

      Answer mt =
          api.sql(
              "CREATE MATERIALIZED TABLE sasl_copy FRESHNESS = INTERVAL '1' SECOND AS SELECT id, v FROM sasl_src",
              "examples",
              "secrets");
      answers.add(mt.text());
      assertThat(mt.status()).as(mt.text()).isEqualTo(200);
      api.awaitPhase("secrets", "sasl_copy", "RUNNING");
      // The job logged in with the password: every row arrives in the table's topic.
      List<String> rows = TopicReader.values(plain, "sasl_copy", 20, Duration.ofSeconds(60), true);
      assertThat(rows).hasSize(20);

      String tables = "/v1/catalogs/examples/databases/secrets/";
      for (String path :
          List.of(
              tables + "tables",
              tables + "tables/sasl_src",
              tables + "materialized-tables",
              tables + "materialized-tables/sasl_copy",
              tables + "materialized-tables/sasl_copy/versions",
              tables + "materialized-tables/sasl_copy/versions/1",
              tables + "materialized-tables/sasl_copy/events",
              "/v1/audit?limit=500",
              "/actuator/health")) {
        Answer answer = api.get(path);
        assertThat(answer.status()).as(path + ": " + answer.text()).isEqualTo(200);
        answers.add(answer.text());
      }
      for (String statement :
          List.of(
              "SHOW TABLES",
              "DESCRIBE sasl_src",
              "SHOW CREATE MATERIALIZED TABLE sasl_copy",
              "SHOW MATERIALIZED TABLE sasl_copy")) {
        Answer answer = api.sql(statement, "examples", "secrets");
        answers.add(answer.text());
      }
      assertThat(
              api.get(tables + "tables/sasl_src")
                  .body()
                  .path("spec")
                  .path("options")
                  .path("properties.sasl.jaas.config")
                  .asString())
          .isEqualTo("******");
      assertThat(
              api.get(tables + "tables/sasl_src").body().path("spec").path("statement").asString())
          .contains("'properties.sasl.jaas.config' = '******'");
      TimeUnit.SECONDS.sleep(2); // let the reconciler's next pass log what it logs

      // Every table of the store, as text.
      List<String> stored = new ArrayList<>();
      for (String table :
          jdbc.queryForList(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
              String.class)) {
        stored.addAll(jdbc.queryForList("SELECT t::text FROM \"" + table + "\" t", String.class));
      }
      assertThat(String.join("\n", stored)).contains("sasl_src").doesNotContain(password);
      assertThat(String.join("\n", answers)).contains("sasl_src").doesNotContain(password);
      List<String> lines =
          logs.list.stream()
              .filter(e -> !e.getLoggerName().startsWith("org.apache.flink"))
              .map(e -> e.getFormattedMessage() + " " + String.valueOf(e.getThrowableProxy()))
              .toList();
      assertThat(lines).isNotEmpty();
      assertThat(lines).noneMatch(l -> l.contains(password));
    } finally {
      root.detachAppender(logs);
      api.sql("DROP MATERIALIZED TABLE IF EXISTS sasl_copy", "examples", "secrets");
    }
  }

  @Test
  void shouldMaskEveryPasswordOfKafkasClientConfigsEverywhere() {
    Api api = new Api(port);
    Map<String, String> values = new TreeMap<>();
    for (String key : KafkaClientOptions.passwords()) {
      String value =
          "pw-" + key.replace('.', '-') + "-" + UUID.randomUUID().toString().substring(0, 8);
      values.put(
          "properties." + key,
          key.equals("sasl.jaas.config") ? jaas("user", value).replace("'", "''") : value);
    }
    StringBuilder options = new StringBuilder();
    values.forEach((k, v) -> options.append(", '").append(k).append("' = '").append(v).append("'"));
    String create =
        "CREATE TABLE all_passwords (id INT) WITH ('connector' = 'kafka', 'topic' = 'sec_all_in',"
            + " 'format' = 'json'"
            + options
            + ")";
    List<String> answers = new ArrayList<>();
    answers.add(api.post("/v1/statements/validate", Map.of("statement", create)).text());
    Map<String, Object> dryRun = new LinkedHashMap<>();
    dryRun.put("statement", create);
    dryRun.put("catalog", "examples");
    dryRun.put("database", "secrets_all");
    dryRun.put("dryRun", true);
    Answer dry = api.post("/v1/statements", dryRun);
    assertThat(dry.status()).as(dry.text()).isEqualTo(200);
    answers.add(dry.text());
    Answer created = api.sql(create, "examples", "secrets_all");
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    answers.add(created.text());
    // A script that fails after it: its error snippet shows the statement's options.
    answers.add(api.sql(create + ";\nSELECT FROM", "examples", "secrets_all").text());
    String db = "/v1/catalogs/examples/databases/secrets_all/";
    answers.add(api.get(db + "tables").text());
    Answer table = api.get(db + "tables/all_passwords");
    answers.add(table.text());
    answers.add(api.sql("SHOW CREATE TABLE all_passwords", "examples", "secrets_all").text());
    answers.add(api.get("/v1/audit?limit=50").text());
    String all = String.join("\n", answers);
    assertThat(all).contains("all_passwords");
    for (Map.Entry<String, String> secret : values.entrySet()) {
      String bare =
          secret.getValue().contains("password=\"")
              ? secret.getValue().split("password=\"")[1].split("\"")[0]
              : secret.getValue();
      assertThat(all).as(secret.getKey()).doesNotContain(bare);
      assertThat(table.body().path("spec").path("options").path(secret.getKey()).asString())
          .as(secret.getKey())
          .isEqualTo("******");
    }
    api.sql("DROP TABLE all_passwords", "examples", "secrets_all");
  }
}
