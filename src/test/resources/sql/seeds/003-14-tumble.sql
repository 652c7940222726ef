CREATE MATERIALIZED TABLE order_summary
  FRESHNESS = INTERVAL '1' MINUTE
AS
SELECT date, count(*), sum(amount)
FROM orders
WHERE event_time >= TUMBLE_START(event_time, INTERVAL '1' MINUTE)
GROUP BY date, TUMBLE(event_time, INTERVAL '1' MINUTE);
