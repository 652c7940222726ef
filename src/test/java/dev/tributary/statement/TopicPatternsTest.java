package dev.tributary.statement;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicPatternsTest {

  @Test
  void shouldReadTheLiteralStartEveryMatchShares() {
    assertThat(TopicPatterns.head("team-a\\..*").orElseThrow())
        .isEqualTo(new TopicPatterns.Head("team-a.", false));
    assertThat(TopicPatterns.head("^team-a\\.orders$").orElseThrow())
        .isEqualTo(new TopicPatterns.Head("team-a.orders", true));
    // An unescaped dot matches any character: the head stops before it.
    assertThat(TopicPatterns.head("team-a.orders").orElseThrow().text()).isEqualTo("team-a");
    // A quantifier makes its character optional.
    assertThat(TopicPatterns.head("team-ab*").orElseThrow().text()).isEqualTo("team-a");
    assertThat(TopicPatterns.head("team-ab?x").orElseThrow().text()).isEqualTo("team-a");
  }

  @Test
  void shouldGiveNoHeadToAlternationsFlagsOrALeadingWildcard() {
    assertThat(TopicPatterns.head("a|b")).isEmpty();
    assertThat(TopicPatterns.head("team-a\\..*|other")).isEmpty();
    assertThat(TopicPatterns.head("(?i)team")).isEmpty();
    assertThat(TopicPatterns.head(".*")).isEmpty();
    assertThat(TopicPatterns.head("[a-z]+")).isEmpty();
    assertThat(TopicPatterns.head("\\Qteam\\E")).isEmpty();
  }
}
