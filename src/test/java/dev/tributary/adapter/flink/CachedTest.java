package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.flinkformat.DebeziumJsonConfluentFormatFactory;
import dev.tributary.flinkformat.JsonConfluentFormatFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import org.junit.jupiter.api.Test;

class CachedTest {

  SteppedClock clock = new SteppedClock(Instant.parse("2026-12-03T00:00:00Z"));

  @Test
  void shouldAskOncePerTtlAndAgainAfterAFailure() {
    Cached<String> cached = new Cached<>(Duration.ofMinutes(1), clock);
    AtomicInteger asked = new AtomicInteger();

    assertThat(cached.get(() -> "v" + asked.incrementAndGet())).isEqualTo("v1");
    clock.advance(Duration.ofSeconds(59));
    assertThat(cached.get(() -> "v" + asked.incrementAndGet())).isEqualTo("v1");
    clock.advance(Duration.ofSeconds(2));
    assertThat(cached.get(() -> "v" + asked.incrementAndGet())).isEqualTo("v2");

    Cached<String> failing = new Cached<>(Duration.ofMinutes(1), clock);
    assertThatThrownBy(
            () ->
                failing.get(
                    () -> {
                      throw new IllegalStateException("store down");
                    }))
        .hasMessage("store down");
    assertThat(failing.get(() -> "answered")).isEqualTo("answered");
  }

  @Test
  void shouldBuildTheSameFormatJarTwiceWithTheFactoriesAndNothingElse() throws Exception {
    byte[] jar = FormatJar.build();
    assertThat(FormatJar.build()).isEqualTo(jar); // named by content: the same classes, one name

    List<String> names = new ArrayList<>();
    String factories = null;
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
      for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
        names.add(e.getName());
        if (e.getName().startsWith("META-INF/services/")) {
          factories = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
    }
    assertThat(names)
        .allMatch(n -> n.startsWith(FormatJar.PACKAGE_PATH) || n.startsWith("META-INF/services/"))
        .contains(FormatJar.PACKAGE_PATH + "JsonConfluentFormatFactory.class");
    assertThat(factories)
        .contains(JsonConfluentFormatFactory.class.getName())
        .contains(DebeziumJsonConfluentFormatFactory.class.getName())
        .doesNotContain("org.apache.flink");
  }
}
