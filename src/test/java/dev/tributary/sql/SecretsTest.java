package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.GlobalConfiguration;
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

  @Test
  void shouldNameEverySecretThatFlinksSensitiveKeyRuleNames() {
    List<String> keys = new ArrayList<>();
    for (String word : Secrets.FLINK_WORDS) {
      keys.add(word);
      keys.add("properties." + word);
      keys.add("value.avro-confluent." + word + ".x");
    }
    keys.addAll(
        List.of(
            "security.ssl.keystore-password",
            "value.avro-confluent.basic-auth.user-info",
            "value.avro-confluent.bearer-auth.token",
            "properties.sasl.jaas.config",
            "http-headers.authorization"));
    for (String key : keys) {
      assertThat(GlobalConfiguration.isSensitive(key)).as(key).isTrue();
      assertThat(Secrets.isSecret(key)).as(key).isTrue();
    }
  }

  @Test
  void shouldNameEveryPasswordOfKafkasClientConfigurationAndOurOwnList() {
    assertThat(KafkaClientOptions.passwords())
        .contains("ssl.keystore.password", "sasl.jaas.config", "ssl.keystore.key")
        .hasSizeGreaterThanOrEqualTo(8);
    for (String password : KafkaClientOptions.passwords()) {
      assertThat(Secrets.isSecret("properties." + password)).as(password).isTrue();
      assertThat(Secrets.isSecret(password)).as(password).isTrue();
    }
    for (String key :
        List.of(
            "properties.basic.auth.user.info",
            "basic.auth.user.info",
            "properties.sasl.login.passphrase",
            "properties.sasl.oauthbearer.assertion.private.key.passphrase",
            "x.credentials",
            "ssl.private-key",
            "some.jaas.config")) {
      assertThat(Secrets.isSecret(key)).as(key).isTrue();
    }
    assertThat(Secrets.isSecret("properties.ssl.truststore.location")).isFalse();
    assertThat(Secrets.isSecret("properties.group.id")).isFalse();
  }

  @Test
  void shouldMaskUserInfoWrittenInSqlOrAsMapEntries() {
    assertThat(
            Secrets.redact(
                "WITH ('properties.basic.auth.user.info' = 'user:password',"
                    + " 'properties.sasl.login.passphrase' = 'pp')"))
        .doesNotContain("user:password")
        .doesNotContain("'pp'");
    assertThat(Secrets.redact("{basic.auth.user.info=u:p, topic=t}"))
        .isEqualTo("{basic.auth.user.info=******, topic=t}");
  }

  @Test
  void shouldFindAKeyWhoseOpeningQuoteClosesAnotherLiteral() {
    assertThat(Secrets.redact("'x'password' = 'hunter22'")).doesNotContain("hunter22");
    assertThat(Secrets.redact("'a' 'password' = 'hunter22'")).doesNotContain("hunter22");
    assertThat(Secrets.redact("'password' = 'cut off hunter22")).doesNotContain("hunter22");
  }

  /**
   * Inputs that made the former regular expressions backtrack: long runs of key characters, of
   * quotes, of "k=" pieces. The scans read each character a bounded number of times, so even the
   * largest script is read in well under a second (it took minutes before).
   */
  @Test
  void shouldReadAdversarialTextInLinearTime() {
    int n = 512 * 1024;
    List<String> inputs =
        List.of(
            "a".repeat(n),
            "'".repeat(n),
            "''".repeat(n / 2) + "x",
            "'a' = ".repeat(n / 6),
            "a=".repeat(n / 2),
            "'password' = '" + "x".repeat(n),
            "a.b-c_d".repeat(n / 7) + "=");
    for (String input : inputs) {
      long start = System.nanoTime();
      String redacted = Secrets.redact(input);
      Set<String> values = Secrets.valuesIn(input);
      Secrets.mask(input, values);
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(redacted).isNotNull();
      assertThat(millis).as(input.substring(0, 20)).isLessThan(2_000);
    }
  }

  @Test
  void shouldMaskTheEndsOfALongValueCutBySnippets() {
    String value = "v".repeat(10_000) + "w";
    String snippet = "'k' = '" + value.substring(0, 5_000);
    assertThat(Secrets.mask(snippet, Set.of(value))).isEqualTo("'k' = '******");
    assertThat(Secrets.mask(value.substring(9_000) + "' x", Set.of(value))).isEqualTo("******' x");
  }
}
