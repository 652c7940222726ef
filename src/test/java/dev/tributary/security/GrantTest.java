package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class GrantTest {

  @Test
  void shouldParseScopesAndCoverOnlyThem() {
    Grant db = Grant.parse("developer:examples.marketplace");
    Grant catalog = Grant.parse("viewer:examples.*");
    Grant all = Grant.parse("admin");

    assertThat(db.allows(Role.VIEWER, "examples", "marketplace")).isTrue();
    assertThat(db.allows(Role.ADMIN, "examples", "marketplace")).isFalse();
    assertThat(db.allows(Role.VIEWER, "examples", "other")).isFalse();
    assertThat(catalog.allows(Role.VIEWER, "examples", "other")).isTrue();
    assertThat(catalog.allows(Role.DEVELOPER, "examples", "other")).isFalse();
    assertThat(catalog.allows(Role.VIEWER, "shop", "other")).isFalse();
    assertThat(all.allows(Role.ADMIN, "any", "thing")).isTrue();
    assertThat(all).hasToString("admin:*");
    assertThat(db).hasToString("developer:examples.marketplace");
  }

  @Test
  void shouldRefuseWhatIsNotAGrant() {
    for (String bad : List.of("root", "viewer:examples", "viewer:a.b.c", "viewer:*.x", "")) {
      assertThatThrownBy(() -> Grant.parse(bad)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void shouldTellGlobalAdminsFromAdminsOfOneDatabase() {
    Caller global = new Caller("a", "api-key", List.of(Grant.parse("admin:*")));
    Caller local = new Caller("b", "api-key", List.of(Grant.parse("admin:examples.marketplace")));

    assertThat(global.globalAdmin()).isTrue();
    assertThat(local.globalAdmin()).isFalse();
    assertThat(local.sees("examples", "marketplace")).isTrue();
    assertThat(local.seesCatalog("examples")).isTrue();
    assertThat(local.sees("examples", "other")).isFalse();
  }
}
