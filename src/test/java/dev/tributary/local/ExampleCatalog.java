package dev.tributary.local;

import dev.tributary.catalog.SourceTableDefinition;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code examples.marketplace} catalog of the seeds' usage examples: orders, customers and
 * products, each a Kafka topic of JSON rows that {@link ExampleDataGenerator} keeps feeding. The
 * tables are declared in SQL, through the same parser users go through.
 */
public final class ExampleCatalog {

  public static final String CATALOG = "examples";
  public static final String DATABASE = "marketplace";
  public static final List<String> TABLES = List.of("orders", "customers", "products");

  private ExampleCatalog() {}

  /** The Kafka topic behind an example table. */
  public static String topic(String table) {
    return CATALOG + "." + DATABASE + "." + table;
  }

  /**
   * Every order in the orders topic now, as its JSON rows (read for {@code read}, committed only):
   * what tests count a table's rows against.
   */
  public static List<JsonNode> orders(String bootstrapServers, Duration read) {
    return TopicReader.values(bootstrapServers, topic("orders"), Integer.MAX_VALUE, read, false)
        .stream()
        .map(o -> JsonMapper.shared().readTree(o))
        .toList();
  }

  public static List<SourceTableDefinition> tables(String bootstrapServers) {
    return List.of(
        table(
            """
            CREATE TABLE orders (
              order_id STRING,
              customer_id INT,
              product_id STRING,
              price DOUBLE,
              event_time TIMESTAMP(3),
              WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
            )""",
            "orders",
            bootstrapServers),
        table(
            """
            CREATE TABLE customers (
              customer_id INT,
              name STRING,
              address STRING,
              postcode STRING,
              city STRING,
              email STRING
            )""",
            "customers",
            bootstrapServers),
        table(
            """
            CREATE TABLE products (
              product_id STRING,
              name STRING,
              brand STRING,
              vendor STRING,
              department STRING
            )""",
            "products",
            bootstrapServers));
  }

  private static SourceTableDefinition table(String columns, String name, String bootstrapServers) {
    String ddl =
        columns
            + " WITH ('connector' = 'kafka', 'topic' = '"
            + topic(name)
            + "', 'properties.bootstrap.servers' = '"
            + bootstrapServers
            + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json')";
    return SourceTableDefinition.of((Statement.CreateSourceTable) Parser.parse(ddl));
  }
}
