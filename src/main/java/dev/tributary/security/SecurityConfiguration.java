package dev.tributary.security;

import dev.tributary.system.ErrorCode;
import dev.tributary.system.web.Problems;
import dev.tributary.system.web.RequestIdFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.MDC;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthenticationToken;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationProvider;
import org.springframework.security.oauth2.server.resource.web.authentication.BearerTokenAuthenticationFilter;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Every endpoint needs a bearer token except liveness, readiness, the bare health status and the
 * API documentation (so that Swagger UI can load and offer Authorize). A token is an API key when
 * it starts with {@code trb_}, otherwise an OAuth2 JWT, checked only when an issuer (or JWK set, or
 * public key) is configured under {@code spring.security.oauth2.resourceserver.jwt}. What a caller
 * may do is decided where a request names its catalog and database ({@link Access}).
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
class SecurityConfiguration {

  /**
   * No Micrometer observations of Spring Security's own: of its filter chain (one around each of
   * its filters), its authentication and its authorization. They took 13% of the request threads'
   * JFR samples in {@code GetBench}, as a span or a timer for each step of every request, where a
   * request is one span already (its {@code http.server.requests} observation, which stays, and
   * with it the request's {@code traceId} in its log lines). {@code
   * tributary.security.observations=true} brings them back.
   */
  @Bean
  @ConditionalOnProperty(
      name = "tributary.security.observations",
      havingValue = "false",
      matchIfMissing = true)
  SecurityObservationSettings securityObservationSettings() {
    return SecurityObservationSettings.noObservations();
  }

  @Bean
  SecurityFilterChain api(
      HttpSecurity http,
      ApiKeyService keys,
      UiSessions sessions,
      ObjectProvider<JwtDecoder> jwt,
      SecurityProperties p)
      throws Exception {
    List<AuthenticationProvider> providers = new ArrayList<>();
    providers.add(
        new PrefixedTokenProvider(
            ApiKeyService.PREFIX, keys::authenticate, "Unknown, revoked or expired API key"));
    providers.add(
        new PrefixedTokenProvider(
            UiSessions.PREFIX, sessions::authenticate, "Unknown or ended page session"));
    JwtDecoder decoder = jwt.getIfAvailable();
    if (decoder != null) {
      JwtAuthenticationProvider tokens = new JwtAuthenticationProvider(decoder);
      tokens.setJwtAuthenticationConverter(
          token -> new CallerAuthentication(caller(token, p.jwt())));
      providers.add(tokens);
    }
    AuthenticationManager manager = new ProviderManager(providers);
    AuthenticationEntryPoint unauthorized = SecurityConfiguration::unauthorized;
    AccessDeniedHandler denied =
        (request, response, e) ->
            Problems.write(
                request,
                response,
                Problems.of(
                    ErrorCode.FORBIDDEN,
                    "This endpoint needs an admin of every catalog (admin:*)"));
    http.csrf(c -> c.disable()) // bearer tokens only: no cookie a browser would send on its own
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .requestCache(c -> c.disable())
        .authorizeHttpRequests(
            a ->
                a.requestMatchers(
                        "/actuator/health",
                        "/actuator/health/liveness",
                        "/actuator/health/readiness")
                    .permitAll()
                    .requestMatchers(
                        "/swagger-ui.html", "/swagger-ui/**", "/v3/api-docs", "/v3/api-docs/**")
                    .permitAll()
                    .requestMatchers(
                        "/error", "/ui/login", "/ui/logout", "/problems", "/problems/*")
                    .permitAll()
                    .requestMatchers("/actuator/**")
                    .hasRole("ADMIN")
                    .anyRequest()
                    .authenticated())
        .oauth2ResourceServer(
            o ->
                o.authenticationManagerResolver(request -> manager)
                    .bearerTokenResolver(new UiCookie())
                    .authenticationEntryPoint(unauthorized)
                    .accessDeniedHandler(denied))
        .exceptionHandling(
            e -> e.authenticationEntryPoint(unauthorized).accessDeniedHandler(denied))
        .addFilterAfter(
            (request, response, chain) -> {
              Authentication who = SecurityContextHolder.getContext().getAuthentication();
              if (who != null && who.getPrincipal() instanceof Caller caller) {
                request.setAttribute(AuditContext.CALLER, caller);
                MDC.put(RequestIdFilter.PRINCIPAL, caller.name()); // removed by RequestIdFilter
              }
              chain.doFilter(request, response);
            },
            BearerTokenAuthenticationFilter.class);
    return http.build();
  }

  /** A request the firewall refuses (an encoded slash, a dot segment) is a 400 problem too. */
  @Bean
  RequestRejectedHandler requestRejectedHandler() {
    return (request, response, e) ->
        Problems.write(
            request,
            response,
            Problems.of(
                ErrorCode.BAD_REQUEST,
                "The request path is not allowed (encoded slashes, dot segments, control"
                    + " characters and the like are refused)"));
  }

  private static void unauthorized(
      HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
      throws IOException {
    boolean sent = request.getHeader(HttpHeaders.AUTHORIZATION) != null;
    if (!sent && "GET".equals(request.getMethod()) && UiCookie.isPage(request)) {
      // A browser on the status page without a session (or with a revoked key): sign in.
      response.setStatus(HttpServletResponse.SC_SEE_OTHER);
      response.setHeader(HttpHeaders.LOCATION, request.getContextPath() + "/ui/login");
      return;
    }
    response.setHeader(
        HttpHeaders.WWW_AUTHENTICATE,
        sent ? "Bearer error=\"invalid_token\"" : "Bearer realm=\"tributary\"");
    Problems.write(
        request,
        response,
        Problems.of(
            ErrorCode.UNAUTHORIZED,
            sent
                ? "The bearer token is not valid (unknown, revoked or expired API key, or a JWT"
                    + " that does not verify)"
                : "Send an API key or an OAuth2 token: Authorization: Bearer <token>"));
  }

  /** The grants of a JWT: its grants claim, and scopes that name a role. */
  static Caller caller(Jwt token, SecurityProperties.Jwt mapping) {
    Set<Grant> grants = new LinkedHashSet<>();
    Object claim = token.getClaims().get(mapping.grantsClaim());
    if (claim instanceof Collection<?> values) {
      for (Object value : values) {
        grants.add(parseOrThrow(String.valueOf(value)));
      }
    } else if (claim instanceof String text) {
      for (String value : text.split("[ ,]+")) {
        if (!value.isBlank()) {
          grants.add(parseOrThrow(value));
        }
      }
    }
    Object scopes = token.getClaims().getOrDefault("scope", token.getClaims().get("scp"));
    List<String> scopeList =
        scopes instanceof Collection<?> c
            ? c.stream().map(String::valueOf).toList()
            : scopes instanceof String s ? List.of(s.split(" ")) : List.of();
    for (String scope : scopeList) {
      if (scope.startsWith(mapping.scopePrefix())) {
        String role = scope.substring(mapping.scopePrefix().length());
        try {
          grants.add(Grant.everywhere(Role.parse(role)));
        } catch (IllegalArgumentException ignored) {
          // a scope of another service that shares the prefix
        }
      }
    }
    String name = token.getClaimAsString(mapping.nameClaim());
    return new Caller(
        name == null ? token.getSubject() : name,
        "jwt",
        List.copyOf(grants),
        new Caller.Credential(null, token.getExpiresAt()));
  }

  private static Grant parseOrThrow(String text) {
    try {
      return Grant.parse(text);
    } catch (IllegalArgumentException e) {
      throw new BadCredentialsException("The token's grant is not valid: " + e.getMessage());
    }
  }

  /**
   * Bearer tokens with a prefix of ours: API keys ({@code trb_}) and status page sessions ({@code
   * trs_}, which {@link UiCookie} only ever reads from the page's cookie). Other tokens are left to
   * the JWT provider.
   */
  static final class PrefixedTokenProvider implements AuthenticationProvider {

    private final String prefix;
    private final Function<String, Optional<Caller>> lookup;
    private final String unknown;

    PrefixedTokenProvider(
        String prefix, Function<String, Optional<Caller>> lookup, String unknown) {
      this.prefix = prefix;
      this.lookup = lookup;
      this.unknown = unknown;
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
      String token = ((BearerTokenAuthenticationToken) authentication).getToken();
      if (!token.startsWith(prefix)) {
        return null;
      }
      return lookup
          .apply(token)
          .map(CallerAuthentication::new)
          .orElseThrow(() -> new BadCredentialsException(unknown));
    }

    @Override
    public boolean supports(Class<?> type) {
      return BearerTokenAuthenticationToken.class.isAssignableFrom(type);
    }
  }
}
