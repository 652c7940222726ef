package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LikeTest {

  @Test
  void shouldMatchAsSqlLikeDoes() {
    assertThat(TableQueries.like("orders", "orders")).isTrue();
    assertThat(TableQueries.like("orders", "ord%")).isTrue();
    assertThat(TableQueries.like("orders", "%ers")).isTrue();
    assertThat(TableQueries.like("orders", "o_d%s")).isTrue();
    assertThat(TableQueries.like("orders", "%")).isTrue();
    assertThat(TableQueries.like("", "%")).isTrue();
    assertThat(TableQueries.like("orders", "%x%")).isFalse();
    assertThat(TableQueries.like("orders", "order")).isFalse();
    assertThat(TableQueries.like("orders", "_rders_")).isFalse();
    assertThat(TableQueries.like("a.b", "a_b")).isTrue();
    assertThat(TableQueries.like("a.b", "a.%")).isTrue();
    assertThat(TableQueries.like("abcabd", "%ab%d")).isTrue();
    assertThat(TableQueries.like("mississippi", "%iss%ppi")).isTrue();
  }

  /** A pattern of many %s over a long name: at most name x pattern steps, not exponential. */
  @Test
  void shouldMatchManyWildcardsWithoutBacktrackingExponentially() {
    String name = "a".repeat(249);
    String pattern = "%a".repeat(10_000) + "b";
    long start = System.nanoTime();
    assertThat(TableQueries.like(name, pattern)).isFalse();
    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000);
  }
}
