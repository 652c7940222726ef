-- Incremental refresh (через property)
ALTER MATERIALIZED TABLE daily_report SET (
  'refresh.incremental' = 'true'
);
