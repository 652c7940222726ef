package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.reconcile.port.FlinkSql;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * CREATE-time checks: immediate answers when the dependencies answer, acceptance when they do not.
 */
class ProvisioningCheckTest {

  FakeWorld world = new FakeWorld();
  ProvisioningCheck check =
      new ProvisioningCheck(new QueryPlanner(world.flink, name -> Optional.empty()), world.kafka);
  ObjectName table = new ObjectName("c", "d", "t");

  @Test
  void shouldAcceptADefinitionWhileFlinkAndKafkaAreDown() {
    world.flink.down = true;
    world.kafka.down = true;

    assertThatCode(
            () -> {
              check.checkNewTopic(table);
              check.checkQuery(
                  table,
                  FakeWorld.definition(
                      "CREATE MATERIALIZED TABLE t (order_id INT) AS SELECT order_id FROM o"));
            })
        .doesNotThrowAnyException();
  }

  @Test
  void shouldRefuseAMismatchAndAForeignTopicWhenTheyAnswer() {
    world.flink.schema = List.of(new FlinkSql.Column("order_id", "STRING", true));
    world.kafka.ensure(new dev.tributary.reconcile.port.Topics.TopicSpec("t", 1, Map.of()));

    assertThatThrownBy(
            () ->
                check.checkQuery(
                    table,
                    FakeWorld.definition(
                        "CREATE MATERIALIZED TABLE t (order_id INT) AS SELECT order_id FROM o")))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("Column 'order_id' is declared INT but the query produces STRING");
    assertThatThrownBy(() -> check.checkNewTopic(table))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("Topic t already exists");
  }
}
