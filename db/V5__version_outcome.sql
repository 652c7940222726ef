-- A definition that was applied and did not come up is kept in the history, marked with why.
ALTER TABLE materialized_table_version ADD COLUMN outcome text;
ALTER TABLE materialized_table_version ADD COLUMN failure text;
