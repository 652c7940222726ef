CREATE MATERIALIZED TABLE customer_orders (
  `order_id` STRING,
  `customer_name` STRING,
  `price` DOUBLE
) AS
SELECT o.order_id, c.name AS customer_name, o.price
FROM examples.marketplace.orders o
JOIN examples.marketplace.customers c ON o.customer_id = c.customer_id;
