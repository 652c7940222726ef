CREATE MATERIALIZED TABLE all_orders
AS
SELECT * FROM examples.marketplace.orders;
