package dev.tributary.security;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
   * @param properties Kafka client settings ({@code properties.<key>}, without the prefix) allowed
   *     besides the safe ones, widening the built-in refusal of keys that load classes or run
   *     commands
   * @param topics the topics each database of the catalog owns: exact names, or prefixes ending in
   *     {@code *}; another database's source table may not read them
   */
  public record Policy(
      @DefaultValue({"kafka", "upsert-kafka"}) List<String> connectors,
      @DefaultValue({}) List<String> bootstrapServers,
      @DefaultValue({}) List<String> urls,
      @DefaultValue({}) List<String> paths,
      @DefaultValue({}) List<String> properties,
      Map<String, List<String>> topics) {

    public Policy {
      connectors = connectors == null ? List.of() : List.copyOf(connectors);
      bootstrapServers = bootstrapServers == null ? List.of() : List.copyOf(bootstrapServers);
      urls = urls == null ? List.of() : List.copyOf(urls);
      paths = paths == null ? List.of() : List.copyOf(paths);
      properties = properties == null ? List.of() : List.copyOf(properties);
      Map<String, List<String>> owned = new TreeMap<>();
      if (topics != null) {
        topics.forEach((db, list) -> owned.put(db, list == null ? List.of() : List.copyOf(list)));
      }
      topics = Collections.unmodifiableMap(owned);
    }

    /** The same policy with other servers and URLs (the service's own added). */
    public Policy withReach(List<String> servers, List<String> allowedUrls) {
      return new Policy(connectors, servers, allowedUrls, paths, properties, topics);
    }
  }
}
