ALTER MATERIALIZED TABLE enriched_orders
SET ('kafka.retention.time' = '30 d');
