package dev.tributary.security;

import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Authentication, secrets and the connector policy ({@code tributary.security.*}).
 *
 * @param bootstrapAdminKey an API key (starting {@code trb_}) that is an admin of every catalog,
 *     created at startup if missing; how the first key is made
 * @param secretKey the AES key (base64, 16, 24 or 32 bytes) that encrypts secret option values at
 *     rest; without one, options that name a secret are refused
 * @param jwt how the claims of an OAuth2 token map onto grants (when an issuer is configured under
 *     {@code spring.security.oauth2.resourceserver.jwt})
 * @param connectors the connector policy of source tables: {@code default}, and per catalog
 */
@ConfigurationProperties("tributary.security")
public record SecurityProperties(
    String bootstrapAdminKey,
    String secretKey,
    @DefaultValue Jwt jwt,
    @DefaultValue Connectors connectors) {

  /**
   * @param grantsClaim a claim holding grants as {@code role:catalog.database} strings
   * @param scopePrefix scopes {@code <prefix>viewer|developer|admin} grant that role everywhere
   * @param nameClaim the claim that names the caller in the audit log
   */
  public record Jwt(
      @DefaultValue("tributary_grants") String grantsClaim,
      @DefaultValue("tributary:") String scopePrefix,
      @DefaultValue("sub") String nameClaim) {}

  /** The policy of every catalog without one of its own, and those of named catalogs. */
  public record Connectors(@DefaultValue Policy defaults, Map<String, Policy> catalogs) {

    public Connectors {
      catalogs = catalogs == null ? Map.of() : Map.copyOf(catalogs);
    }

    public Policy of(String catalog) {
      return catalogs.getOrDefault(catalog, defaults);
    }
  }

  /**
   * What source tables of a catalog may reach.
   *
   * @param connectors connector names allowed
   * @param bootstrapServers Kafka servers allowed besides the service's own cluster
   * @param urls URL prefixes allowed besides the service's Schema Registry
   * @param paths file-system path prefixes allowed (none by default)
   */
  public record Policy(
      @DefaultValue({"kafka", "upsert-kafka"}) List<String> connectors,
      @DefaultValue({}) List<String> bootstrapServers,
      @DefaultValue({}) List<String> urls,
      @DefaultValue({}) List<String> paths) {

    public Policy {
      connectors = connectors == null ? List.of() : List.copyOf(connectors);
      bootstrapServers = bootstrapServers == null ? List.of() : List.copyOf(bootstrapServers);
      urls = urls == null ? List.of() : List.copyOf(urls);
      paths = paths == null ? List.of() : List.copyOf(paths);
    }
  }
}
