CREATE MATERIALIZED TABLE realtime_dashboard
  FRESHNESS = INTERVAL '30' SECOND
AS
SELECT category, count(*), sum(amount)
FROM orders
WHERE event_time > NOW() - INTERVAL '1' HOUR
GROUP BY category;
