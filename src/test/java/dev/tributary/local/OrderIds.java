package dev.tributary.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * Exactly-once, counted: the example orders' ids against the {@code order_id}s a table's topic
 * holds in a read_committed read.
 */
public final class OrderIds {

  /** What a read of the table found against the source ids. */
  public record Count(int sourceRows, int duplicated, int missing) {}

  private OrderIds() {}

  /** The ids of every example order written so far (read for {@code reading}). */
  public static Set<String> source(String bootstrapServers, Duration reading) {
    Set<String> ids = new HashSet<>();
    TopicReader.values(
            bootstrapServers, ExampleCatalog.topic("orders"), Integer.MAX_VALUE, reading, false)
        .forEach(o -> ids.add(orderId(o)));
    return ids;
  }

  /** The table's rows, read committed, against {@code expected}. */
  public static Count count(String bootstrapServers, String topic, Set<String> expected) {
    List<String> ids =
        TopicReader.values(bootstrapServers, topic, Integer.MAX_VALUE, Duration.ofSeconds(3), true)
            .stream()
            .map(OrderIds::orderId)
            .toList();
    Set<String> seen = new HashSet<>(ids);
    int duplicated = ids.size() - seen.size();
    seen.retainAll(expected);
    return new Count(expected.size(), duplicated, expected.size() - seen.size());
  }

  /**
   * Waits (up to 90 s) until the table holds every source order written so far, each once: what the
   * fault tests assert after each fault. Returns the last count.
   */
  public static Count awaitExactlyOnce(String bootstrapServers, String topic) {
    Set<String> expected = source(bootstrapServers, Duration.ofSeconds(3));
    Count[] count = new Count[1];
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              count[0] = count(bootstrapServers, topic, expected);
              assertThat(count[0].missing()).as("source rows missing from " + topic).isZero();
              assertThat(count[0].duplicated()).as("rows written twice to " + topic).isZero();
            });
    return count[0];
  }

  private static String orderId(String json) {
    return JsonMapper.shared().readTree(json).path("order_id").asString();
  }
}
