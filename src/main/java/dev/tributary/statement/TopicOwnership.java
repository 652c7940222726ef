package dev.tributary.statement;

import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.CatalogService.SourceTopics;
import dev.tributary.security.Access;
import dev.tributary.security.ConnectorPolicy;
import dev.tributary.security.ConnectorPolicy.TopicClaim;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.web.Problems;
import dev.tributary.table.MaterializedTableService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Which database a topic's data belongs to, and so who may register a source table over it. A topic
 * is owned, in this order, by the databases whose connector policy claims it ({@code topics}, exact
 * or prefix), else by the databases whose source tables already read it. A materialized table's
 * topic is its table's and is read through the table. A source table in one database may read
 * another database's topic only when its caller holds developer there, as it would need to read
 * that database's tables directly. A {@code topic-pattern} is allowed only under a prefix its own
 * database claims, and with no other database's topic or claim in its reach.
 */
@Component
public class TopicOwnership {

  private static final Logger log = LoggerFactory.getLogger(TopicOwnership.class);

  private final ConnectorPolicy policy;
  private final CatalogService catalogs;
  private final MaterializedTableService tables;

  TopicOwnership(ConnectorPolicy policy, CatalogService catalogs, MaterializedTableService tables) {
    this.policy = policy;
    this.catalogs = catalogs;
    this.tables = tables;
  }

  /** 403 naming the option unless the connector policy allows the source table and its topics. */
  public void checkSource(ObjectName source, Map<String, String> options) {
    policy.check(source.catalog(), options);
    checkTopics(source, options);
  }

  /** 403 naming the option unless every topic the source table would read is its database's. */
  void checkTopics(ObjectName source, Map<String, String> options) {
    List<String> topics = CatalogService.topicsOf(options.get("topic"));
    String pattern = options.get("topic-pattern");
    // Named topics need only what touches them; a pattern's reach is checked against everything.
    World world = pattern == null ? worldOf(topics) : world();
    for (String topic : topics) {
      world.refusal(source, topic).ifPresent(why -> refuse("topic", why));
    }
    if (pattern != null) {
      world.patternRefusal(source, pattern, true).ifPresent(why -> refuse("topic-pattern", why));
    }
  }

  /**
   * Source tables that read a topic of another database or table (registered before the rule, or
   * before a claim was added), described for the catalog's admin; all catalogs when null.
   */
  public List<String> violations(String catalog) {
    World world = world();
    List<String> found = new ArrayList<>();
    for (SourceTopics s : world.sources) {
      if (catalog != null && !s.table().catalog().equals(catalog)) {
        continue;
      }
      for (String topic : s.topics()) {
        world
            .ownerRefusal(s.table(), topic, false)
            .ifPresent(why -> found.add(s.table() + " reads " + topic + ": " + why));
      }
      if (s.pattern() != null) {
        world
            .patternRefusal(s.table(), s.pattern(), false)
            .ifPresent(why -> found.add(s.table() + " reads pattern " + s.pattern() + ": " + why));
      }
    }
    return found;
  }

  @EventListener(ApplicationReadyEvent.class)
  void reportAtStartup() {
    for (String violation : violations(null)) {
      log.warn("Source table breaks topic ownership: {}", violation);
    }
  }

  private World world() {
    return new World(policy.topicClaims(), catalogs.sourceTopics(), tables.topicOwners());
  }

  /**
   * The world as far as these topics go: the claims, the source tables that read them and the
   * tables whose topics they are, each an index read; what {@link World#refusal} asks of a topic is
   * the same in it as in {@link #world()}.
   */
  private World worldOf(List<String> topics) {
    List<SourceTopics> sources = new ArrayList<>();
    Map<String, ObjectName> materialized = new HashMap<>();
    for (String topic : new LinkedHashSet<>(topics)) {
      sources.addAll(catalogs.sourceTopicsReading(topic));
      tables.topicOwner(topic).ifPresent(table -> materialized.put(topic, table));
    }
    return new World(policy.topicClaims(), sources, materialized);
  }

  private static void refuse(String option, String why) {
    throw new ApiException(
        ErrorCode.CONNECTOR_NOT_ALLOWED,
        "Option '" + option + "' is refused by the connector policy: " + why,
        Map.of("option", option));
  }

  /** The claims, sources and materialized tables' topics at one moment. */
  private record World(
      List<TopicClaim> claims, List<SourceTopics> sources, Map<String, ObjectName> materialized) {

    /** Why the source table may not read the topic, if it may not. */
    Optional<String> refusal(ObjectName source, String topic) {
      return ownerRefusal(source, topic, true);
    }

    Optional<String> ownerRefusal(ObjectName source, String topic, boolean checkCaller) {
      ObjectName table = materialized.get(topic);
      if (table != null) {
        return Optional.of(
            Problems.cut(topic)
                + " is the topic of "
                + (visible(table) ? "materialized table " + table : "a table of another database")
                + "; read that table instead");
      }
      Set<Db> owners = new LinkedHashSet<>();
      for (TopicClaim claim : claims) {
        if (claim.matches(topic)) {
          owners.add(new Db(claim.catalog(), claim.database()));
        }
      }
      boolean claimed = !owners.isEmpty();
      if (!claimed) {
        for (SourceTopics s : sources) {
          if (s.topics().contains(topic)) {
            owners.add(databaseOf(s.table()));
          }
        }
      }
      if (owners.contains(databaseOf(source))) {
        return Optional.empty(); // its own database's topic (claimed, or read there already)
      }
      for (Db owner : owners) {
        if (!checkCaller || !developer(owner)) {
          return Optional.of(ownedBy(topic, owner, claimed));
        }
      }
      return Optional.empty();
    }

    Optional<String> patternRefusal(ObjectName source, String pattern, boolean checkCaller) {
      Optional<TopicPatterns.Head> head = TopicPatterns.head(pattern);
      if (head.isPresent() && head.get().whole()) {
        return ownerRefusal(source, head.get().text(), checkCaller); // a literal: one topic
      }
      if (head.isEmpty()) {
        return Optional.of(
            "a topic pattern must start with a literal prefix that its database claims, with no"
                + " alternation ('|'); name the topics ('topic') instead");
      }
      String h = head.get().text();
      Db own = databaseOf(source);
      boolean underOwnClaim =
          claims.stream()
              .anyMatch(
                  c ->
                      c.entry().endsWith("*")
                          && own.equals(new Db(c.catalog(), c.database()))
                          && h.startsWith(c.literal()));
      if (!underOwnClaim) {
        return Optional.of(
            "the pattern's prefix '"
                + Problems.cut(h)
                + "' is not under a topic prefix that "
                + own
                + " claims in the connector policy ('topics')");
      }
      for (TopicClaim c : claims) {
        Db owner = new Db(c.catalog(), c.database());
        boolean overlaps =
            c.literal().startsWith(h) || (c.entry().endsWith("*") && h.startsWith(c.literal()));
        if (overlaps && !owner.equals(own) && !(checkCaller && developer(owner))) {
          return Optional.of(
              ownedBy(c.literal() + (c.entry().endsWith("*") ? "*" : ""), owner, true));
        }
      }
      for (SourceTopics s : sources) {
        Db owner = databaseOf(s.table());
        for (String topic : s.topics()) {
          if (topic.startsWith(h) && !owner.equals(own) && !(checkCaller && developer(owner))) {
            return Optional.of(ownedBy(topic, owner, false));
          }
        }
      }
      for (Map.Entry<String, ObjectName> t : materialized.entrySet()) {
        if (t.getKey().startsWith(h) && !databaseOf(t.getValue()).equals(own)) {
          return Optional.of(
              "the pattern reaches "
                  + (visible(t.getValue())
                      ? "the topic of materialized table " + t.getValue()
                      : "the topic of a table of another database"));
        }
      }
      return Optional.empty();
    }

    private static boolean developer(Db database) {
      return Access.caller().may(Role.DEVELOPER, database.catalog(), database.database());
    }

    private static String ownedBy(String topic, Db owner, boolean claimed) {
      boolean named = Access.sees(owner.catalog(), owner.database());
      return Problems.cut(topic)
          + (claimed ? " is claimed by " : " is read by source tables of ")
          + (named
              ? "database " + owner + "; reading it needs developer there"
              : "another database");
    }

    private static boolean visible(ObjectName table) {
      return Access.sees(table.catalog(), table.database());
    }

    private static Db databaseOf(ObjectName table) {
      return new Db(table.catalog(), table.database());
    }
  }

  /** A database, as owners are named. */
  private record Db(String catalog, String database) {
    @Override
    public String toString() {
      return catalog + "." + database;
    }
  }
}
