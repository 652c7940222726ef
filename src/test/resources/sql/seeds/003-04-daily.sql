CREATE MATERIALIZED TABLE daily_report
  FRESHNESS = INTERVAL '1' DAY
AS
SELECT DATE(event_time), category, count(*)
FROM orders
WHERE event_time > NOW() - INTERVAL '90' DAY
GROUP BY DATE(event_time), category;
