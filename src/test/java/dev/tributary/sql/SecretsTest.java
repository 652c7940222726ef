package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretsTest {

  @Test
  void shouldNameSecretsAsFlinkDoesAndLeaveTheKeyFormatAlone() {
    assertThat(Secrets.isSecret("properties.sasl.jaas.config")).isTrue();
    assertThat(Secrets.isSecret("properties.ssl.truststore.password")).isTrue();
    assertThat(Secrets.isSecret("fs.azure.account.key")).isTrue();
    assertThat(Secrets.isSecret("properties.ssl.keystore.key")).isTrue();
    assertThat(Secrets.isSecret("basic-auth.credentials")).isTrue();
    assertThat(Secrets.isSecret("value.avro-confluent.bearer-auth.token")).isTrue();
    assertThat(Secrets.isSecret("key.format")).isFalse();
    assertThat(Secrets.isSecret("key.fields")).isFalse();
    assertThat(Secrets.isSecret("properties.bootstrap.servers")).isFalse();
    assertThat(Secrets.isSecret("topic")).isFalse();
  }

  @Test
  void shouldMaskValuesInSqlAndInMaps() {
    String sql =
        "WITH ('topic' = 't', 'properties.sasl.jaas.config' = 'Plain required password=\"p''w\";',"
            + " 'properties.ssl.truststore.password' = 'hunter22')";

    assertThat(Secrets.redact(sql))
        .isEqualTo(
            "WITH ('topic' = 't', 'properties.sasl.jaas.config' = '******',"
                + " 'properties.ssl.truststore.password' = '******')");
    assertThat(Secrets.redact("{a.password=x1, topic=t}"))
        .isEqualTo("{a.password=******, topic=t}");
    assertThat(Secrets.masked(Map.of("a.secret", "s", "b", "v")))
        .containsEntry("a.secret", "******")
        .containsEntry("b", "v");
  }

  @Test
  void shouldMaskASecretInASnippetThatCutsItsKeyOff() {
    String value = "required username=\"u\" password=\"local-1234567890\";";
    String script =
        "CREATE TABLE t (a INT) WITH ('x.sasl.jaas.config' = '" + value + "' 'f' = 'j')";
    String snippet = "username=\"u\" password=\"local-1234567890\";' 'f' = 'j')\n      ^";

    String masked = Secrets.mask(snippet, Secrets.valuesIn(script));

    assertThat(masked).doesNotContain("local-1234567890").contains("******");
    assertThat(masked).endsWith("' 'f' = 'j')\n      ^");
  }
}
