package dev.tributary.security;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.TributaryProperties;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * What a source table may reach, per catalog: which connectors, and which values of the options
 * that open a network connection or a file. By default: the Kafka connectors on the service's own
 * cluster, with its own Schema Registry, and no file paths. A refused option is a 403 naming it.
 */
@Component
public class ConnectorPolicy {

  private final SecurityProperties.Connectors policies;
  private final List<String> ownServers;
  private final String ownRegistry;

  ConnectorPolicy(SecurityProperties security, TributaryProperties tributary) {
    this.policies = security.connectors();
    this.ownServers = servers(tributary.kafka().bootstrapServers());
    this.ownRegistry = tributary.schemaRegistry().url().toString();
  }

  /** The policy of a catalog, with the service's own cluster and registry included. */
  public SecurityProperties.Policy effective(String catalog) {
    SecurityProperties.Policy p = policies.of(catalog);
    List<String> servers = new ArrayList<>(ownServers);
    p.bootstrapServers().forEach(s -> servers.addAll(servers(s)));
    List<String> urls = new ArrayList<>(List.of(ownRegistry));
    urls.addAll(p.urls());
    return new SecurityProperties.Policy(p.connectors(), servers, urls, p.paths());
  }

  /** 403 unless every option of a source table in the catalog is allowed. */
  public void check(String catalog, Map<String, String> options) {
    SecurityProperties.Policy p = effective(catalog);
    String connector = options.get("connector");
    if (connector == null || !p.connectors().contains(connector)) {
      throw refused(
          "connector",
          "connector '"
              + connector
              + "' is not allowed in catalog "
              + catalog
              + "; allowed: "
              + String.join(", ", p.connectors()));
    }
    for (Map.Entry<String, String> option : options.entrySet()) {
      String key = option.getKey().toLowerCase(Locale.ROOT);
      String value = option.getValue() == null ? "" : option.getValue();
      if (key.endsWith("bootstrap.servers")) {
        if (servers(value).isEmpty()) {
          throw refused(option.getKey(), "it names no Kafka server");
        }
        for (String server : servers(value)) {
          if (!p.bootstrapServers().contains(server)) {
            throw refused(option.getKey(), "Kafka server '" + server + "' is not allowed");
          }
        }
      } else if (NETWORK.contains(last(key))
          || last(key).endsWith("-url")
          || last(key).endsWith("-uri")) {
        for (String url : value.split(",")) {
          String u = url.trim();
          if (!u.isEmpty() && p.urls().stream().noneMatch(u::startsWith)) {
            throw refused(option.getKey(), "URL '" + u + "' is not allowed");
          }
        }
      } else if (key.equals("path")
          || key.endsWith(".path")
          || key.endsWith("location")
          || key.endsWith(".file")
          || key.contains("keytab")
          || key.endsWith(".dir")) {
        if (p.paths().stream().noneMatch(value::startsWith)) {
          throw refused(option.getKey(), "path '" + value + "' is not allowed");
        }
      } else if (key.endsWith(".class") || key.endsWith(".classes")) {
        throw refused(option.getKey(), "options that load classes are not allowed");
      } else if (key.equals("topic-pattern")) {
        throw refused(
            option.getKey(), "a topic pattern could read any topic; name the topics ('topic')");
      } else if (key.endsWith("jaas.config") && value.toLowerCase(Locale.ROOT).contains("keytab")) {
        throw refused(option.getKey(), "a JAAS configuration may not read a keytab file");
      }
    }
  }

  private static String last(String key) {
    return key.substring(key.lastIndexOf('.') + 1);
  }

  /** The last part of option keys that name a place on the network. */
  private static final Set<String> NETWORK =
      Set.of("url", "urls", "uri", "uris", "endpoint", "host", "hosts", "hostname");

  private static ApiException refused(String option, String why) {
    return new ApiException(
        ErrorCode.CONNECTOR_NOT_ALLOWED,
        "Option '" + option + "' is refused by the connector policy: " + why,
        Map.of("option", option));
  }

  private static List<String> servers(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
