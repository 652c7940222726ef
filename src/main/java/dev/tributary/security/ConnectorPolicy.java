package dev.tributary.security;

import dev.tributary.sql.KafkaClientOptions;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.system.TributaryProperties;
import dev.tributary.system.web.Problems;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * What a source table may reach, per catalog: which connectors, and which values of the options
 * that open a network connection or a file. By default: the Kafka connectors on the service's own
 * cluster, with its own Schema Registry, and no file paths. A refused option is a 403 naming it. An
 * admin of the catalog may replace a catalog's policy through the API (kept in {@code
 * connector_policy}); otherwise it is the configured one ({@code tributary.security.connectors}).
 */
@Component
public class ConnectorPolicy {

  private static final Pattern CONNECTOR = Pattern.compile("[a-z0-9][a-z0-9.-]{0,99}");
  private static final Pattern SERVER = Pattern.compile("[A-Za-z0-9.-]+:\\d{1,5}");
  private static final Pattern PROPERTY = Pattern.compile("[a-z0-9][a-z0-9._-]{0,199}");
  private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final Pattern TOPIC_CLAIM = Pattern.compile("[a-zA-Z0-9._-]{1,249}\\*?");

  /** The JAAS login modules a source may use: user names and passwords or tokens, no files. */
  private static final Set<String> LOGIN_MODULES =
      Set.of(
          "org.apache.kafka.common.security.plain.PlainLoginModule",
          "org.apache.kafka.common.security.scram.ScramLoginModule",
          "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule");

  /** Flink's Kafka connector shades the client under this package. */
  private static final String SHADED = "org.apache.flink.kafka.shaded.";

  private final SecurityProperties.Connectors policies;
  private final List<String> ownServers;
  private final String ownRegistry;
  private final JdbcTemplate jdbc;
  private final AuditLog audit;

  ConnectorPolicy(
      SecurityProperties security,
      TributaryProperties tributary,
      JdbcTemplate jdbc,
      AuditLog audit) {
    this.jdbc = jdbc;
    this.audit = audit;
    this.policies = security.connectors();
    this.ownServers = servers(tributary.kafka().bootstrapServers());
    this.ownRegistry = tributary.schemaRegistry().url().toString();
  }

  /**
   * The policy of a catalog, with the service's own cluster and registry included: the one an admin
   * set through the API, else the configured one.
   */
  public SecurityProperties.Policy effective(String catalog) {
    SecurityProperties.Policy p = stored(catalog).orElseGet(() -> policies.of(catalog));
    List<String> servers = new ArrayList<>(ownServers);
    p.bootstrapServers().forEach(s -> servers.addAll(servers(s)));
    List<String> urls = new ArrayList<>(List.of(ownRegistry));
    urls.addAll(p.urls());
    return p.withReach(servers, urls);
  }

  /** A database's claim on topics: an exact name, or a prefix ending in {@code *}. */
  public record TopicClaim(String catalog, String database, String entry) {

    public boolean matches(String topic) {
      return entry.endsWith("*")
          ? topic.startsWith(entry.substring(0, entry.length() - 1))
          : topic.equals(entry);
    }

    /** The literal part: the exact name, or the prefix without its star. */
    public String literal() {
      return entry.endsWith("*") ? entry.substring(0, entry.length() - 1) : entry;
    }
  }

  /** Every database's topic claims, in every catalog with a configured or stored policy. */
  public List<TopicClaim> topicClaims() {
    Map<String, SecurityProperties.Policy> all = new TreeMap<>(policies.catalogs());
    jdbc.query(
        "SELECT catalog, policy::text FROM connector_policy",
        rs -> {
          all.put(rs.getString(1), Json.read(rs.getString(2), SecurityProperties.Policy.class));
        });
    List<TopicClaim> claims = new ArrayList<>();
    all.forEach(
        (catalog, p) ->
            p.topics()
                .forEach(
                    (db, entries) ->
                        entries.forEach(e -> claims.add(new TopicClaim(catalog, db, e)))));
    return claims;
  }

  private Optional<SecurityProperties.Policy> stored(String catalog) {
    return jdbc
        .query(
            "SELECT policy::text FROM connector_policy WHERE catalog = ?",
            (rs, i) -> rs.getString(1),
            catalog)
        .stream()
        .findFirst()
        .map(json -> Json.read(json, SecurityProperties.Policy.class));
  }

  /**
   * Sets the catalog's policy (the service's own cluster and registry stay allowed). It applies to
   * source tables registered from now on; tables already registered keep their options.
   */
  @Transactional
  public SecurityProperties.Policy replace(String catalog, SecurityProperties.Policy policy) {
    validate(policy);
    String before = stored(catalog).map(Json::write).orElse(null);
    String after = Json.write(policy);
    jdbc.update(
        "INSERT INTO connector_policy (catalog, policy, updated_by, updated_at)"
            + " VALUES (?, ?::jsonb, ?, now()) ON CONFLICT (catalog) DO UPDATE"
            + " SET policy = EXCLUDED.policy, updated_by = EXCLUDED.updated_by,"
            + " updated_at = EXCLUDED.updated_at",
        catalog,
        after,
        Access.caller().name());
    audit.changed("connector-policy.replace", "connector-policy:" + catalog, before, after);
    return effective(catalog);
  }

  /** Drops the policy set through the API: the catalog has the configured one again. */
  @Transactional
  public SecurityProperties.Policy reset(String catalog) {
    Optional<SecurityProperties.Policy> before = stored(catalog);
    if (before.isPresent()) {
      jdbc.update("DELETE FROM connector_policy WHERE catalog = ?", catalog);
      audit.changed(
          "connector-policy.reset", "connector-policy:" + catalog, Json.write(before.get()), null);
    }
    return effective(catalog);
  }

  private static void validate(SecurityProperties.Policy policy) {
    for (String connector : policy.connectors()) {
      if (!CONNECTOR.matcher(connector).matches()) {
        throw invalid("connectors", connector, "a connector identifier such as kafka");
      }
    }
    for (String server : policy.bootstrapServers()) {
      if (!SERVER.matcher(server).matches()) {
        throw invalid("bootstrapServers", server, "host:port");
      }
    }
    for (String url : policy.urls()) {
      if (!url.startsWith("http://") && !url.startsWith("https://")) {
        throw invalid("urls", url, "an http:// or https:// prefix");
      }
    }
    for (String path : policy.paths()) {
      if (!path.startsWith("/") && !path.startsWith("file:/") && !path.startsWith("s3://")) {
        throw invalid("paths", path, "an absolute path prefix (/..., file:/..., s3://...)");
      }
      if (path.contains("..")) {
        throw invalid("paths", path, "a prefix without '..'");
      }
    }
    for (String property : policy.properties()) {
      if (!PROPERTY.matcher(property).matches()) {
        throw invalid("properties", property, "a Kafka client key such as interceptor.classes");
      }
    }
    policy
        .topics()
        .forEach(
            (db, entries) -> {
              if (!DATABASE.matcher(db).matches()) {
                throw invalid("topics", db, "a database name");
              }
              for (String entry : entries) {
                if (!TOPIC_CLAIM.matcher(entry).matches()) {
                  throw invalid(
                      "topics." + db, entry, "a topic name, or a prefix ending in * (not * alone)");
                }
              }
            });
  }

  private static ApiException invalid(String field, String value, String expected) {
    return new ApiException(
        ErrorCode.VALIDATION_FAILED,
        "'" + field + "' cannot hold '" + value + "'; expected " + expected);
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
      if (key.startsWith(KafkaClientOptions.PREFIX)) {
        String clientKey = key.substring(KafkaClientOptions.PREFIX.length());
        if (p.properties().contains(clientKey)) {
          continue; // the catalog's admin allowed this client setting
        }
        Optional<String> why = KafkaClientOptions.refusal(clientKey);
        if (why.isPresent()) {
          throw refused(
              option.getKey(),
              why.get() + "; a catalog admin may allow it in the connector policy's 'properties'");
        }
        if (clientKey.equals("sasl.jaas.config")) {
          checkJaas(option.getKey(), value);
        }
      }
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
      } else if (key.endsWith("jaas.config") && value.toLowerCase(Locale.ROOT).contains("keytab")) {
        throw refused(option.getKey(), "a JAAS configuration may not read a keytab file");
      }
    }
  }

  /**
   * 403 unless the catalog's policy allows the URL ({@code urls}, by prefix): what a webhook of the
   * catalog may call.
   */
  public void checkUrl(String catalog, String field, String url) {
    SecurityProperties.Policy p = effective(catalog);
    if (p.urls().stream().noneMatch(url::startsWith)) {
      throw new ApiException(
          ErrorCode.CONNECTOR_NOT_ALLOWED,
          "'"
              + field
              + "' is refused by the connector policy of catalog "
              + catalog
              + ": URL '"
              + Problems.cut(url)
              + "' is not allowed (its 'urls' list the prefixes that are)",
          Map.of("field", field));
    }
  }

  /** 403 unless every login module of the JAAS configuration is PLAIN, SCRAM or OAUTHBEARER. */
  private static void checkJaas(String option, String value) {
    for (String module : loginModules(value)) {
      String name = module.startsWith(SHADED) ? module.substring(SHADED.length()) : module;
      if (!LOGIN_MODULES.contains(name)) {
        throw refused(
            option,
            "login module '"
                + Problems.cut(module)
                + "' is not allowed; use PlainLoginModule, ScramLoginModule or"
                + " OAuthBearerLoginModule");
      }
    }
  }

  /**
   * The login module class of each entry of a JAAS configuration ({@code <class> <flag> k="v" ...;}
   * repeated): the first word after each top-level {@code ;}, quotes skipped. Read by hand in one
   * pass: no parser for this text ships with the client, and it is tenant input.
   */
  static List<String> loginModules(String jaas) {
    List<String> modules = new ArrayList<>();
    boolean quoted = false;
    boolean atEntryStart = true;
    int i = 0;
    while (i < jaas.length()) {
      char c = jaas.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
        i++;
        continue;
      }
      if (c == '"') {
        quoted = true;
        atEntryStart = false;
      } else if (c == ';') {
        atEntryStart = true;
      } else if (!Character.isWhitespace(c) && atEntryStart) {
        int end = i;
        while (end < jaas.length()
            && !Character.isWhitespace(jaas.charAt(end))
            && jaas.charAt(end) != ';'
            && jaas.charAt(end) != '"') {
          end++;
        }
        modules.add(jaas.substring(i, end));
        atEntryStart = false;
        i = end;
        continue;
      }
      i++;
    }
    return modules;
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
