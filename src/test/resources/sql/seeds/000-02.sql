CREATE MATERIALIZED TABLE orders_avro (
  `order_id` STRING,
  `customer_id` INT,
  `price` DOUBLE
)
WITH (
  'value.format' = 'avro-registry'
)
AS
SELECT order_id, customer_id, price
FROM examples.marketplace.orders;
