-- Hot, real-time
CREATE MATERIALIZED TABLE dashboard_realtime
  DISTRIBUTED BY HASH(category) INTO 16 BUCKETS
  FRESHNESS = INTERVAL '1' MINUTE
AS
SELECT category, count(*) AS orders, sum(amount) AS revenue
FROM orders
WHERE event_time > NOW() - INTERVAL '24' HOUR
GROUP BY category;
-- Flink: CONTINUOUS streaming job

-- Mid, hourly batch
CREATE MATERIALIZED TABLE dashboard_trends_30d
  DISTRIBUTED BY HASH(date) INTO 32 BUCKETS
  PARTITIONED BY (date)
  FRESHNESS = INTERVAL '1' HOUR
AS
SELECT date, category, count(*), sum(amount)
FROM orders
WHERE event_time > NOW() - INTERVAL '30' DAY
GROUP BY date, category;
-- Flink: FULL incremental refresh каждый час

-- Cold, daily batch
CREATE MATERIALIZED TABLE dashboard_summary_90d
  DISTRIBUTED BY HASH(date) INTO 8 BUCKETS
  PARTITIONED BY (date)
  FRESHNESS = INTERVAL '1' DAY
AS
SELECT date, count(*), sum(amount), avg(amount)
FROM orders
WHERE event_time > NOW() - INTERVAL '90' DAY
GROUP BY date;
