package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConnectorPolicyTest {

  @Test
  void shouldReadEveryLoginModuleOfAJaasConfigurationPastQuotedSemicolons() {
    String jaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
            + " password=\"a;b \\\" c;\";\n com.sun.security.auth.module.JndiLoginModule required"
            + " user.provider.url=\"ldap://x\";";
    assertThat(ConnectorPolicy.loginModules(jaas))
        .containsExactly(
            "org.apache.kafka.common.security.plain.PlainLoginModule",
            "com.sun.security.auth.module.JndiLoginModule");
    assertThat(ConnectorPolicy.loginModules("")).isEmpty();
    assertThat(ConnectorPolicy.loginModules("\"unterminated ; x")).isEmpty();
  }
}
