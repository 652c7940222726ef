ALTER MATERIALIZED TABLE enriched_orders
ADD (`price_with_vat` AS price * 1.21);
