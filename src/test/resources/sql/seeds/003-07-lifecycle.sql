-- Pause refresh (e.g., during maintenance)
ALTER MATERIALIZED TABLE order_summary SUSPEND;

-- Resume
ALTER MATERIALIZED TABLE order_summary RESUME;

-- Refresh on-demand
ALTER MATERIALIZED TABLE order_summary REFRESH;

-- Refresh specific partition
ALTER MATERIALIZED TABLE order_summary REFRESH PARTITION (date = '2026-05-19');

-- Change FRESHNESS
ALTER MATERIALIZED TABLE order_summary
  SET FRESHNESS = INTERVAL '1' MINUTE;

-- Drop
DROP MATERIALIZED TABLE order_summary;
