-- A flow of a pipeline table (CREATE TABLE ... FLOW, CREATE FLOW) is a row of its own: its own
-- job, checkpoints, savepoints, lifecycle and status, reconciled like a table, writing into the
-- topic of the table it names in flow_of. Flow names are unique per database, table names too;
-- a flow may have its table's name (the flow a CREATE TABLE ... FLOW defines has it). Flows
-- share their table's topic, which only the table owns.
ALTER TABLE materialized_table ADD COLUMN flow_of uuid;

ALTER TABLE materialized_table DROP CONSTRAINT materialized_table_database_id_name_key;
CREATE UNIQUE INDEX materialized_table_name ON materialized_table (database_id, name)
    WHERE flow_of IS NULL;
CREATE UNIQUE INDEX materialized_table_flow_name ON materialized_table (database_id, name)
    WHERE flow_of IS NOT NULL;
CREATE INDEX materialized_table_flows ON materialized_table (flow_of) WHERE flow_of IS NOT NULL;

DROP INDEX materialized_table_topic;
CREATE UNIQUE INDEX materialized_table_topic ON materialized_table (topic_name)
    WHERE flow_of IS NULL;
