CREATE MATERIALIZED TABLE order_summary
  PARTITIONED BY (date)
  FRESHNESS = INTERVAL '5' MINUTE
  REFRESH MODE = AUTO
AS
SELECT date, count(*) AS order_count, sum(amount) AS total
FROM orders
GROUP BY date;
