package dev.tributary.local;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps the example topics fed: a starting set of customers and products, then a few orders a
 * second that reference them, and now and then a new customer or product. Seeded, so every run
 * produces the same names.
 */
final class ExampleDataGenerator implements AutoCloseable {

  private static final DateTimeFormatter SQL_TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  private static final List<String> CITIES =
      List.of("Amsterdam", "Berlin", "Lisbon", "Madrid", "Oslo", "Paris", "Prague", "Vienna");
  private static final List<String> NAMES =
      List.of("Ada", "Brian", "Chen", "Dana", "Emil", "Fatima", "Gita", "Hugo", "Ines", "Jon");
  private static final List<String> DEPARTMENTS =
      List.of("books", "garden", "kitchen", "music", "outdoor", "toys");
  private static final int FIRST_CUSTOMER = 3000;

  private final KafkaProducer<String, String> producer;
  private final Random random = new Random(42);
  private final JsonMapper json = JsonMapper.shared();
  private final Thread thread;
  private volatile boolean running = true;
  private int customers;
  private int products;

  private ExampleDataGenerator(String bootstrapServers) {
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.CLIENT_ID_CONFIG,
                "tributary-example-generator"),
            new StringSerializer(),
            new StringSerializer());
    this.thread = new Thread(this::run, "example-data-generator");
    this.thread.setDaemon(true);
  }

  /** Creates the example topics and starts feeding them. */
  static ExampleDataGenerator start(String bootstrapServers) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      List<NewTopic> topics =
          ExampleCatalog.TABLES.stream()
              .map(t -> new NewTopic(ExampleCatalog.topic(t), 1, (short) 1))
              .toList();
      admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
    }
    ExampleDataGenerator generator = new ExampleDataGenerator(bootstrapServers);
    for (int i = 0; i < 100; i++) {
      generator.newCustomer();
    }
    for (int i = 0; i < 50; i++) {
      generator.newProduct();
    }
    generator.producer.flush();
    generator.thread.start();
    return generator;
  }

  private void run() {
    long tick = 0;
    while (running) {
      try {
        newOrder();
        if (++tick % 30 == 0) {
          newCustomer();
        }
        if (tick % 45 == 0) {
          newProduct();
        }
        Thread.sleep(300);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (running) {
          // Kafka went away under us (shutdown); stop quietly.
          return;
        }
      }
    }
  }

  private void newOrder() {
    Map<String, Object> order = new LinkedHashMap<>();
    order.put("order_id", UUID.nameUUIDFromBytes(longBytes(random.nextLong())).toString());
    order.put("customer_id", FIRST_CUSTOMER + random.nextInt(customers));
    order.put("product_id", productId(random.nextInt(products)));
    order.put("price", Math.round(random.nextDouble() * 10_000) / 100.0);
    order.put("event_time", LocalDateTime.now(ZoneOffset.UTC).format(SQL_TIMESTAMP));
    send("orders", (String) order.get("order_id"), order);
  }

  private void newCustomer() {
    int id = FIRST_CUSTOMER + customers++;
    String name =
        NAMES.get(random.nextInt(NAMES.size())) + " " + (char) ('A' + random.nextInt(26)) + ".";
    Map<String, Object> customer = new LinkedHashMap<>();
    customer.put("customer_id", id);
    customer.put("name", name);
    customer.put("address", (1 + random.nextInt(200)) + " Market Street");
    customer.put("postcode", String.format("%05d", random.nextInt(100_000)));
    customer.put("city", CITIES.get(random.nextInt(CITIES.size())));
    customer.put("email", "customer" + id + "@example.com");
    send("customers", String.valueOf(id), customer);
  }

  private void newProduct() {
    String id = productId(products++);
    Map<String, Object> product = new LinkedHashMap<>();
    product.put("product_id", id);
    product.put("name", "Product " + id.substring(2));
    product.put("brand", "Brand " + (char) ('A' + random.nextInt(8)));
    product.put("vendor", "Vendor " + (1 + random.nextInt(12)));
    product.put("department", DEPARTMENTS.get(random.nextInt(DEPARTMENTS.size())));
    send("products", id, product);
  }

  private static String productId(int index) {
    return String.format("P-%04d", index + 1);
  }

  private void send(String table, String key, Map<String, Object> row) {
    producer.send(
        new ProducerRecord<>(ExampleCatalog.topic(table), key, json.writeValueAsString(row)));
  }

  private static byte[] longBytes(long value) {
    return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(5_000);
    producer.close(Duration.ofSeconds(5));
  }
}
