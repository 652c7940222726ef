-- Revenue per customer from the high-value orders: an upsert table keyed by customer_id.
CREATE MATERIALIZED TABLE revenue_by_customer
  FRESHNESS = INTERVAL '10' SECOND
AS SELECT customer_id, COUNT(*) AS orders, SUM(price) AS revenue
   FROM high_value_orders
   GROUP BY customer_id;
