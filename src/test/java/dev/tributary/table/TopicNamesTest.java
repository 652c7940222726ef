package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import org.junit.jupiter.api.Test;

class TopicNamesTest {

  ObjectName orders = new ObjectName("prod", "sales", "orders");

  @Test
  void shouldNameTheTopicAfterTheTableByDefault() {
    assertThat(new TopicNames("{table}").of(orders)).isEqualTo("orders");
  }

  @Test
  void shouldFillEveryPlaceholderOfTheTemplate() {
    assertThat(new TopicNames("mt.{catalog}.{database}.{table}").of(orders))
        .isEqualTo("mt.prod.sales.orders");
  }

  @Test
  void shouldRefuseATemplateWithoutTheTableOrWithAnUnknownPlaceholder() {
    assertThatThrownBy(() -> new TopicNames("{database}"))
        .hasMessageContaining("must contain {table}");
    assertThatThrownBy(() -> new TopicNames("{env}.{table}"))
        .hasMessageContaining("unknown placeholder {env}");
  }

  @Test
  void shouldRefuseNamesThatAreNotLegalTopicNames() {
    ObjectName spaced = new ObjectName("my catalog", "db", "t");

    assertThatThrownBy(() -> new TopicNames("{catalog}-{table}").of(spaced))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("my catalog-t")
        .hasMessageContaining("not a legal Kafka topic name");
    assertThatThrownBy(() -> new TopicNames("{table}" + "x".repeat(249)).of(orders))
        .hasMessageContaining("at most 249");
  }
}
