-- Orders above 50, as they arrive.
CREATE MATERIALIZED TABLE high_value_orders
  FRESHNESS = INTERVAL '10' SECOND
AS SELECT order_id, customer_id, price, event_time
   FROM orders
   WHERE price > 50;
