package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

class BesideTest {

  @AfterEach
  void clear() {
    SecurityContextHolder.clearContext();
  }

  @Test
  void shouldRunACallBesideAsTheCallerOfTheThreadThatAskedIt() {
    SecurityContextHolder.getContext()
        .setAuthentication(new TestingAuthenticationToken("team-a", "key", "ROLE_USER"));

    String who = Beside.await(Beside.ask(BesideTest::caller));

    assertThat(who).isEqualTo("team-a");
  }

  @Test
  void shouldLeaveNoCallersIdentityOnTheThreadForTheNextCall() {
    SecurityContextHolder.getContext()
        .setAuthentication(new TestingAuthenticationToken("team-a", "key", "ROLE_USER"));
    Beside.await(Beside.ask(BesideTest::caller));
    SecurityContextHolder.clearContext();

    // The service's own work (a reconcile pass) asks with no caller: none is left behind.
    for (int i = 0; i < 20; i++) {
      assertThat(Beside.await(Beside.ask(BesideTest::caller))).isNull();
    }
  }

  @Test
  void shouldCarryTheCallerThroughACallStartedWhenAnotherEnds() {
    SecurityContextHolder.getContext()
        .setAuthentication(new TestingAuthenticationToken("team-b", "key", "ROLE_USER"));
    Supplier<String> second = Beside.carried(BesideTest::caller);
    SecurityContextHolder.clearContext();

    CompletableFuture<String> chained =
        Beside.ask(() -> "first").thenCompose(first -> Beside.ask(second));

    assertThat(Beside.await(chained)).isEqualTo("team-b");
  }

  private static String caller() {
    Authentication who = SecurityContextHolder.getContext().getAuthentication();
    return who == null ? null : who.getName();
  }
}
