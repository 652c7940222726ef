package dev.tributary;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile cannot be built here (no Docker engine), so its one piece of shell logic is run
 * against the jars this build packaged: the service jar it extracts must be the Spring Boot jar,
 * not the Flink format jar or the command-line jar beside it in target/.
 */
class DockerfileIT {

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
}
