-- DROP is a desired state like any other: the reconciler cancels the job, deletes the topic and
-- subjects, and only then removes the row. Until then the table is visible as DELETING.
ALTER TABLE materialized_table ADD COLUMN deletion_requested boolean NOT NULL DEFAULT false;
