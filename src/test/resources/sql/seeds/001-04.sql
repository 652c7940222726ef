ALTER MATERIALIZED TABLE enriched_orders
MODIFY WATERMARK FOR `event_time` AS `event_time` - INTERVAL '5' SECOND;
