-- Every table owns exactly one topic, named when the table is created (from the configurable
-- template) and never renamed. The unique index is the owner record: a second table can never be
-- given, adopt or delete a topic that another table holds, even after a crash.
ALTER TABLE materialized_table ADD COLUMN topic_name text;
UPDATE materialized_table SET topic_name = name;
ALTER TABLE materialized_table ALTER COLUMN topic_name SET NOT NULL;
CREATE UNIQUE INDEX materialized_table_topic ON materialized_table (topic_name);
