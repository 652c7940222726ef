package dev.tributary.table;

import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.TributaryProperties;
import java.util.regex.Pattern;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Names a new table's topic from {@code tributary.kafka.topic-name-template}. The name is fixed
 * when the table is created and stored with it; changing the template later names only new tables'
 * topics.
 */
@Component
public class TopicNames {

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z]+)}");

  private final String template;

  @Autowired
  public TopicNames(TributaryProperties properties) {
    this(properties.kafka().topicNameTemplate());
  }

  public TopicNames(String template) {
    var m = PLACEHOLDER.matcher(template);
    while (m.find()) {
      if (!m.group(1).matches("catalog|database|table")) {
        throw new IllegalStateException(
            "tributary.kafka.topic-name-template "
                + template
                + " has the unknown placeholder {"
                + m.group(1)
                + "}; use {catalog}, {database} and {table}");
      }
    }
    if (!template.contains("{table}")) {
      throw new IllegalStateException(
          "tributary.kafka.topic-name-template " + template + " must contain {table}");
    }
    this.template = template;
  }

  /** The topic a new table {@code name} gets; 400 if the names do not make a legal topic name. */
  public String of(ObjectName name) {
    String topic =
        template
            .replace("{catalog}", name.catalog())
            .replace("{database}", name.database())
            .replace("{table}", name.name());
    if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION,
          "The topic name "
              + topic
              + " (template "
              + template
              + ") is not a legal Kafka topic name: at most 249 of a-z, A-Z, 0-9, '.', '_', '-'");
    }
    return topic;
  }
}
