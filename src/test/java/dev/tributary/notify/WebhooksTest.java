package dev.tributary.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.system.ApiException;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a subscription may name, and the signature a receiver recomputes. */
class WebhooksTest {

  @Test
  void shouldSignAsAReceiverRecomputesIt() {
    // The same HMAC computed by Python's hmac module:
    // hmac.new(b'whsec_test-secret-0123456789', b'1700000000.{"a":1}', hashlib.sha256).hexdigest()
    assertThat(WebhookDispatcher.sign("whsec_test-secret-0123456789", 1700000000L, "{\"a\":1}"))
        .isEqualTo("0e482f07c35f06573813388adc06b55064b18e3228bd1f28cd50205b2e4029e2");
    assertThat(WebhookDispatcher.sign("whsec_test-secret-0123456789", 1700000001L, "{\"a\":1}"))
        .isNotEqualTo("0e482f07c35f06573813388adc06b55064b18e3228bd1f28cd50205b2e4029e2");
  }

  @Test
  void shouldAcceptOnlyAbsoluteHttpUrlsWithAHost() {
    assertThat(Webhooks.url("https://hooks.example.com/tributary?team=data"))
        .isEqualTo("https://hooks.example.com/tributary?team=data");
    for (String bad :
        new String[] {
          null,
          "",
          "ftp://example.com/x",
          "file:///etc/passwd",
          "hooks.example.com/x",
          "http:///nohost",
          "https://user:pw@example.com/x",
          "https://example.com/x#frag",
          "http://exa mple.com/"
        }) {
      assertThatThrownBy(() -> Webhooks.url(bad))
          .as(bad)
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("'url'");
    }
  }

  @Test
  void shouldAcceptEventTypesReasonsAndTheWildcard() {
    assertThat(Webhooks.events(List.of("*", "WARNING", "JobFailed", "JobFailed")))
        .containsExactly("*", "WARNING", "JobFailed");
    for (List<String> bad :
        List.of(
            List.<String>of(),
            List.of("job failed"),
            List.of("jobFailed"),
            List.of("JobFailed;DROP"),
            Collections.nCopies(51, "JobFailed"))) {
      assertThatThrownBy(() -> Webhooks.events(bad))
          .as(String.valueOf(bad))
          .isInstanceOf(ApiException.class)
          .hasMessageContaining("'events'");
    }
  }
}
