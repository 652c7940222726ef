package dev.tributary.security;

import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * An authenticated {@link Caller}. An admin of every catalog also holds {@code ROLE_ADMIN}, which
 * is what the actuator's health details check.
 */
final class CallerAuthentication extends AbstractAuthenticationToken {

  private final Caller caller;

  CallerAuthentication(Caller caller) {
    super(authorities(caller));
    this.caller = caller;
    setAuthenticated(true);
  }

  private static List<GrantedAuthority> authorities(Caller caller) {
    return caller.globalAdmin()
        ? List.of(new SimpleGrantedAuthority("ROLE_ADMIN"))
        : List.of(new SimpleGrantedAuthority("ROLE_USER"));
  }

  @Override
  public Object getCredentials() {
    return "";
  }

  @Override
  public Caller getPrincipal() {
    return caller;
  }

  @Override
  public String getName() {
    return caller.name();
  }
}
