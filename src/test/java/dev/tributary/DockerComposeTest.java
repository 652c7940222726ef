package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml cannot run here (no Docker engine), so it is read: every long-running service
 * says when it is healthy, every dependency waits for a state its target can reach, all Flink
 * processes and the service agree on where checkpoints and savepoints live (object storage, with
 * the S3 plugin of the Flink version the build uses), the bucket they name is created, and no
 * volume Flink cannot own is mounted into it.
 */
class DockerComposeTest {

  static Map<String, Map<String, Object>> services;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void read() throws IOException {
    Map<String, Object> compose = new Yaml().load(Files.readString(Path.of("docker-compose.yml")));
    services = (Map<String, Map<String, Object>>) compose.get("services");
  }

  /** Services others wait for to complete: one-shot jobs, which need no health check. */
  static Set<String> oneShots() {
    Set<String> oneShots = new TreeSet<>();
    for (Map<String, Object> service : services.values()) {
      dependsOn(service)
          .forEach(
              (target, condition) -> {
                if (condition.equals("service_completed_successfully")) {
                  oneShots.add(target);
                }
              });
    }
    return oneShots;
  }

  @SuppressWarnings("unchecked")
  static Map<String, String> dependsOn(Map<String, Object> service) {
    Object value = service.get("depends_on");
    Map<String, String> conditions = new LinkedHashMap<>();
    if (value instanceof List<?> list) {
      list.forEach(name -> conditions.put((String) name, "service_started"));
    } else if (value instanceof Map<?, ?> map) {
      ((Map<String, Map<String, String>>) map)
          .forEach((name, c) -> conditions.put(name, c.get("condition")));
    }
    return conditions;
  }

  @Test
  void shouldCheckTheHealthOfEveryLongRunningService() {
    Set<String> oneShots = oneShots();
    assertThat(oneShots).contains("flink-connectors", "minio-buckets");
    List<String> unchecked = new ArrayList<>();
    services.forEach(
        (name, service) -> {
          if (!oneShots.contains(name) && !service.containsKey("healthcheck")) {
            unchecked.add(name);
          }
        });
    assertThat(unchecked).as("services without a healthcheck").isEmpty();
  }

  @Test
  void shouldWaitOnlyForStatesItsDependenciesReach() {
    Set<String> oneShots = oneShots();
    services.forEach(
        (name, service) ->
            dependsOn(service)
                .forEach(
                    (target, condition) -> {
                      assertThat(services).as(name + " depends on " + target).containsKey(target);
                      if (condition.equals("service_healthy")) {
                        assertThat(services.get(target))
                            .as(target + " has a healthcheck " + name + " waits for")
                            .containsKey("healthcheck");
                      }
                      assertThat(condition)
                          .as(name + " waits for " + target + " to start only")
                          .isNotEqualTo("service_started");
                      if (oneShots.contains(target)) {
                        assertThat(condition).isEqualTo("service_completed_successfully");
                      }
                    }));
    // Every Flink process needs the connectors first (a list of depends_on would drop them).
    for (String flink : List.of("jobmanager", "taskmanager", "sql-gateway")) {
      assertThat(dependsOn(services.get(flink))).containsKey("flink-connectors");
    }
  }

  @Test
  void shouldKeepCheckpointsAndSavepointsInOneObjectStoreEveryProcessAgreesOn() throws IOException {
    String flinkVersion = pomProperty("flink.version");
    Map<String, Properties> flink = new HashMap<>();
    for (String name : List.of("jobmanager", "taskmanager", "sql-gateway")) {
      Map<String, Object> env = environment(name);
      assertThat(env.get("ENABLE_BUILT_IN_PLUGINS"))
          .as(name + " enables the S3 plugin of Flink " + flinkVersion)
          .isEqualTo("flink-s3-fs-presto-" + flinkVersion + ".jar");
      Properties properties = new Properties();
      properties.load(new StringReader((String) env.get("FLINK_PROPERTIES")));
      flink.put(name, properties);
    }
    Properties jobManager = flink.get("jobmanager");
    String savepoints = jobManager.getProperty("execution.checkpointing.savepoint-dir");
    String checkpoints = jobManager.getProperty("execution.checkpointing.dir");
    assertThat(savepoints).startsWith("s3://");
    assertThat(checkpoints).startsWith("s3://");
    for (Properties p : flink.values()) {
      assertThat(p.getProperty("execution.checkpointing.savepoint-dir")).isEqualTo(savepoints);
      assertThat(p.getProperty("execution.checkpointing.dir")).isEqualTo(checkpoints);
      assertThat(p.getProperty("s3.endpoint")).isEqualTo("http://minio:9000");
      assertThat(p.getProperty("s3.path.style.access")).isEqualTo("true");
      assertThat(p.getProperty("s3.access-key"))
          .isEqualTo(environment("minio").get("MINIO_ROOT_USER"));
      assertThat(p.getProperty("s3.secret-key"))
          .isEqualTo(environment("minio").get("MINIO_ROOT_PASSWORD"));
    }
    Map<String, Object> service = environment("tributary");
    assertThat(service.get("LOGGING_STRUCTURED_FORMAT_CONSOLE")).isEqualTo("ecs");
    assertThat(service.get("TRIBUTARY_FLINK_SAVEPOINT_DIR")).isEqualTo(savepoints);
    // The service reaches the same store, with the same keys, and delivers its format jar there.
    assertThat(service.get("TRIBUTARY_FLINK_STORAGE_S3_ENDPOINT")).isEqualTo("http://minio:9000");
    assertThat(service.get("TRIBUTARY_FLINK_STORAGE_S3_PATH_STYLE_ACCESS")).isEqualTo("true");
    assertThat(service.get("TRIBUTARY_FLINK_STORAGE_S3_ACCESS_KEY"))
        .isEqualTo(environment("minio").get("MINIO_ROOT_USER"));
    assertThat(service.get("TRIBUTARY_FLINK_STORAGE_S3_SECRET_KEY"))
        .isEqualTo(environment("minio").get("MINIO_ROOT_PASSWORD"));
    assertThat((String) service.get("TRIBUTARY_FLINK_FORMAT_JAR_DIR"))
        .startsWith(savepoints.substring(0, savepoints.indexOf('/', "s3://".length())));
    // Flink as released, nothing of ours baked in.
    for (String name : List.of("jobmanager", "taskmanager", "sql-gateway")) {
      assertThat(services.get(name).get("image")).isEqualTo("flink:" + flinkVersion + "-java17");
      assertThat(services.get(name)).doesNotContainKey("build");
    }
    Matcher bucket = Pattern.compile("^s3://([^/]+)/").matcher(savepoints);
    assertThat(bucket.find()).isTrue();
    assertThat(String.valueOf(services.get("minio-buckets").get("command")))
        .contains("mc mb --ignore-existing local/" + bucket.group(1));
  }

  @Test
  void shouldMountNoVolumeIntoFlinkButItsReadOnlyConnectors() {
    for (String name : List.of("jobmanager", "taskmanager", "sql-gateway")) {
      Object volumes = services.get(name).get("volumes");
      assertThat(volumes).as(name).isInstanceOf(List.class);
      for (Object volume : (List<?>) volumes) {
        assertThat((String) volume).as(name + " mounts " + volume).endsWith(":ro");
      }
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> environment(String service) {
    return (Map<String, Object>) services.get(service).get("environment");
  }

  static String pomProperty(String name) throws IOException {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</")
            .matcher(Files.readString(Path.of("pom.xml")));
    assertThat(m.find()).as(name + " in pom.xml").isTrue();
    return m.group(1);
  }
}
