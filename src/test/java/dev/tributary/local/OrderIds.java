package dev.tributary.local;

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

  private static String orderId(String json) {
    return JsonMapper.shared().readTree(json).path("order_id").asString();
  }
}
