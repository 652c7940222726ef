package dev.tributary.reconcile;

import dev.tributary.reconcile.port.DependencyUnavailableException;
import dev.tributary.reconcile.port.Topics;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The checks a CREATE or an evolution gets before it is stored, so that the user hears at once:
 * Flink must accept the query and its schema, and a new table's topic must not exist already. When
 * Flink or Kafka cannot be reached the definition is stored anyway and the reconciler checks it
 * when they are back; its status says what it is waiting for.
 */
@Component
public class ProvisioningCheck {

  private static final Logger log = LoggerFactory.getLogger(ProvisioningCheck.class);

  private final QueryPlanner planner;
  private final Topics topics;

  ProvisioningCheck(QueryPlanner planner, Topics topics) {
    this.planner = planner;
    this.topics = topics;
  }

  public void checkQuery(ObjectName table, MaterializedTableDefinition definition) {
    try {
      planner.validate(table, definition);
    } catch (QueryPlanner.InvalidQueryException e) {
      Map<String, Object> properties = new java.util.LinkedHashMap<>();
      properties.put("problems", e.problems());
      if (e.line() > 0) {
        properties.put("queryLine", e.line());
        properties.put("queryColumn", e.column());
      }
      throw new ApiException(
          ErrorCode.INVALID_QUERY,
          "Invalid query for " + table + ": " + e.getMessage(),
          properties);
    } catch (DependencyUnavailableException e) {
      log.info(
          "Flink unreachable; {} is stored and will be validated by the reconciler: {}",
          table,
          e.getMessage());
    }
  }

  /** A new table must not take over a topic that exists already. */
  public void checkNewTopic(ObjectName table) {
    try {
      if (topics.describe(table.name()).isPresent()) {
        throw new ApiException(
            ErrorCode.ALREADY_EXISTS,
            "Topic "
                + table.name()
                + " already exists and does not belong to a materialized table; it is never adopted silently."
                + " Drop it or choose another table name");
      }
    } catch (DependencyUnavailableException e) {
      log.info(
          "Kafka unreachable; the topic of {} is checked by the reconciler: {}",
          table,
          e.getMessage());
    }
  }
}
