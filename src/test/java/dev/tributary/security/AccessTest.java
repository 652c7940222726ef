package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.system.ApiException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

class AccessTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
    RequestContextHolder.resetRequestAttributes();
  }

  @Test
  void shouldLetTheServiceItselfActOutsideRequests() {
    assertThat(Access.caller()).isSameAs(Caller.SYSTEM);
    Access.require(Role.ADMIN, "any", "db"); // no exception
  }

  @Test
  void shouldGiveARequestWithoutCredentialsNothing() {
    RequestContextHolder.setRequestAttributes(
        new ServletRequestAttributes(new MockHttpServletRequest()));

    assertThat(Access.caller().name()).isEqualTo("anonymous");
    assertThatThrownBy(() -> Access.require(Role.VIEWER, "examples", "marketplace"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("viewer on examples.marketplace");
    assertThat(Access.seesCatalog("examples")).isFalse();
  }

  @Test
  void shouldCheckAnAuthenticatedCallersGrants() {
    RequestContextHolder.setRequestAttributes(
        new ServletRequestAttributes(new MockHttpServletRequest()));
    SecurityContextHolder.getContext()
        .setAuthentication(
            new CallerAuthentication(
                new Caller(
                    "ci", "api-key", List.of(Grant.parse("developer:examples.marketplace")))));

    Access.require(Role.DEVELOPER, "examples", "marketplace");
    assertThatThrownBy(() -> Access.require(Role.ADMIN, "examples", "marketplace"))
        .hasMessageContaining("ci may not do this: it needs admin on examples.marketplace");
    assertThatThrownBy(Access::requireGlobalAdmin).hasMessageContaining("admin:*");
    assertThat(Access.sees("examples", "other")).isFalse();
  }
}
