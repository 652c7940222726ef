package dev.tributary.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.tributary.Api;
import dev.tributary.Api.Answer;
import dev.tributary.TributaryIT;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * OAuth2 bearer tokens beside API keys: a service configured with an issuer's public key accepts
 * the tokens it signed, maps their scopes and grants claim onto the same roles, and refuses tokens
 * that another key signed or that expired.
 */
@TributaryIT
class JwtIT {

  static final KeyPair ISSUER = rsa();
  static final KeyPair STRANGER = rsa();

  @DynamicPropertySource
  static void issuer(DynamicPropertyRegistry registry) throws Exception {
    Path pem = Files.createTempFile("issuer", ".pem");
    Files.writeString(
        pem,
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(ISSUER.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    registry.add(
        "spring.security.oauth2.resourceserver.jwt.public-key-location",
        () -> pem.toUri().toString());
  }

  @LocalServerPort int port;

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String token(
      KeyPair key, String subject, Instant expires, Map<String, Object> claims) throws Exception {
    JWTClaimsSet.Builder set =
        new JWTClaimsSet.Builder()
            .subject(subject)
            .issueTime(new Date())
            .expirationTime(Date.from(expires));
    claims.forEach(set::claim);
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), set.build());
    jwt.sign(new RSASSASigner((RSAPrivateKey) key.getPrivate()));
    return jwt.serialize();
  }

  @Test
  void shouldMapScopesAndGrantsOfSignedTokensOntoRoles() throws Exception {
    Instant hour = Instant.now().plusSeconds(3600);
    Api viewer =
        new Api(port, token(ISSUER, "vera", hour, Map.of("scope", "openid tributary:viewer")));
    Api developer =
        new Api(
            port,
            token(
                ISSUER,
                "dev-ci",
                hour,
                Map.of("tributary_grants", List.of("developer:examples.marketplace"))));

    assertThat(viewer.get("/v1/catalogs").status()).isEqualTo(200);
    assertThat(viewer.sql("SHOW MATERIALIZED TABLES", "examples", "marketplace").status())
        .isEqualTo(200);
    Answer refused =
        viewer.sql("DROP MATERIALIZED TABLE IF EXISTS nosuch", "examples", "marketplace");
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.body().path("detail").asString()).startsWith("vera may not");

    assertThat(
            developer
                .sql("DROP MATERIALIZED TABLE IF EXISTS nosuch", "examples", "marketplace")
                .status())
        .isEqualTo(200);
    assertThat(developer.sql("SHOW TABLES", "examples", "elsewhere").status()).isEqualTo(403);
    assertThat(developer.get("/v1/api-keys").status()).isEqualTo(403);
    // API keys keep working beside tokens.
    assertThat(new Api(port).get("/v1/api-keys").status()).isEqualTo(200);
    assertThat(
            new Api(port)
                .get("/v1/audit?principal=vera")
                .body()
                .path("items")
                .get(0)
                .path("code")
                .asString())
        .isEqualTo("FORBIDDEN");
  }

  @Test
  void shouldRefuseTokensSignedByAnotherKeyOrExpired() throws Exception {
    Map<String, Object> admin = Map.of("scope", "tributary:admin");
    Api forged = new Api(port, token(STRANGER, "mallory", Instant.now().plusSeconds(3600), admin));
    Api expired = new Api(port, token(ISSUER, "late", Instant.now().minusSeconds(600), admin));
    Api bad =
        new Api(
            port,
            token(
                ISSUER,
                "odd",
                Instant.now().plusSeconds(3600),
                Map.of("tributary_grants", List.of("superuser:*"))));

    for (Api caller : List.of(forged, expired, bad)) {
      Answer answer = caller.get("/v1/catalogs");
      assertThat(answer.status()).as(answer.text()).isEqualTo(401);
      assertThat(answer.body().path("code").asString()).isEqualTo("UNAUTHORIZED");
    }
    Api good = new Api(port, token(ISSUER, "root", Instant.now().plusSeconds(3600), admin));
    assertThat(good.get("/v1/api-keys").status()).isEqualTo(200);
  }
}
