-- An INSERT ONCE flow that ran to its end is SUCCEEDED, not RUNNING: nothing runs for it until a
-- full refresh of its table.
ALTER TABLE materialized_table DROP CONSTRAINT materialized_table_phase;
ALTER TABLE materialized_table ADD CONSTRAINT materialized_table_phase CHECK (phase IN ('PENDING',
    'CREATING', 'RUNNING', 'ALTERING', 'DEGRADED', 'STOPPING', 'STOPPED', 'FAILING', 'FAILED',
    'DELETING', 'SUCCEEDED'));
