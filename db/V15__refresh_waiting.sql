-- A manual refresh asked for while another refresh of the table is active waits behind it
-- (WAITING) and is queued the moment that one ends. At most one waits per table: a second request
-- meanwhile is answered with the waiting one.
ALTER TABLE table_refresh DROP CONSTRAINT table_refresh_state;
ALTER TABLE table_refresh ADD CONSTRAINT table_refresh_state CHECK (state IN ('WAITING', 'QUEUED',
    'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'));

CREATE UNIQUE INDEX table_refresh_waiting ON table_refresh (table_id) WHERE state = 'WAITING';
