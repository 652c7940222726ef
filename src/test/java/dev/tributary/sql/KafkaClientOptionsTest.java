package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

class KafkaClientOptionsTest {

  @Test
  void shouldRefuseEveryClientSettingThatLoadsAClass() {
    for (ConfigDef.ConfigKey key : ConsumerConfig.configDef().configKeys().values()) {
      if (key.type == ConfigDef.Type.CLASS) {
        assertThat(KafkaClientOptions.refusal(key.name)).as(key.name).isPresent();
      }
    }
  }

  @Test
  void shouldRefuseCommandsProvidersReportersCallbacksAndUnknownKeys() {
    for (String key :
        List.of(
            "sasl.kerberos.kinit.cmd",
            "security.providers",
            "config.providers",
            "metric.reporters",
            "interceptor.classes",
            "partition.assignment.strategy",
            "sasl.login.callback.handler.class",
            "sasl.client.callback.handler.class",
            "sasl.login.class",
            "ssl.engine.factory.class",
            "key.deserializer",
            "no.such.setting")) {
      assertThat(KafkaClientOptions.refusal(key)).as(key).isPresent();
    }
  }

  @Test
  void shouldAllowPlainClientSettingsAndTheKafkaSourcesOwn() {
    for (String key :
        List.of(
            "group.id",
            "client.rack",
            "security.protocol",
            "sasl.mechanism",
            "sasl.jaas.config",
            "isolation.level",
            "auto.offset.reset",
            "ssl.truststore.location",
            "sasl.oauthbearer.token.endpoint.url",
            "partition.discovery.interval.ms",
            "commit.offsets.on.checkpoint")) {
      assertThat(KafkaClientOptions.refusal(key)).as(key).isEmpty();
    }
  }
}
