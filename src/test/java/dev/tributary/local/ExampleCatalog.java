package dev.tributary.local;

import dev.tributary.catalog.SourceTableDefinition;
import dev.tributary.catalog.SourceTableDefinition.Column;
import dev.tributary.catalog.SourceTableDefinition.Watermark;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code examples.marketplace} catalog of the seeds' usage examples: orders, customers and
 * products, each a Kafka topic of JSON rows that {@link ExampleDataGenerator} keeps feeding.
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

  public static List<SourceTableDefinition> tables(String bootstrapServers) {
    return List.of(
        new SourceTableDefinition(
            "orders",
            List.of(
                new Column("order_id", "STRING", true),
                new Column("customer_id", "INT", true),
                new Column("product_id", "STRING", true),
                new Column("price", "DOUBLE", true),
                new Column("event_time", "TIMESTAMP(3)", true)),
            Optional.of(new Watermark("event_time", "`event_time` - INTERVAL '5' SECOND")),
            options("orders", bootstrapServers)),
        new SourceTableDefinition(
            "customers",
            List.of(
                new Column("customer_id", "INT", true),
                new Column("name", "STRING", true),
                new Column("address", "STRING", true),
                new Column("postcode", "STRING", true),
                new Column("city", "STRING", true),
                new Column("email", "STRING", true)),
            Optional.empty(),
            options("customers", bootstrapServers)),
        new SourceTableDefinition(
            "products",
            List.of(
                new Column("product_id", "STRING", true),
                new Column("name", "STRING", true),
                new Column("brand", "STRING", true),
                new Column("vendor", "STRING", true),
                new Column("department", "STRING", true)),
            Optional.empty(),
            options("products", bootstrapServers)));
  }

  private static Map<String, String> options(String table, String bootstrapServers) {
    return Map.of(
        "connector", "kafka",
        "topic", topic(table),
        "properties.bootstrap.servers", bootstrapServers,
        "scan.startup.mode", "earliest-offset",
        "format", "json");
  }
}
