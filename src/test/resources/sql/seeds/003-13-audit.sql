SELECT
  table_name,
  refresh_mode,
  job_id,
  job_running_time
FROM information_schema.materialized_tables
WHERE refresh_mode = 'CONTINUOUS';

