-- Просмотр lineage и dependencies
SHOW MATERIALIZED TABLE order_summary;
