-- Every refresh of a FULL table: why it ran (schedule, catch-up after downtime, manual, on
-- create), what it read (the source offsets taken when it started: the refresh's bounds), the job
-- that ran it, what it wrote and how it ended. Kept after the table is dropped, as history.
CREATE TABLE table_refresh (
    id                 uuid PRIMARY KEY,
    table_id           uuid        NOT NULL,
    number             bigint      NOT NULL,
    trigger            text        NOT NULL,
    -- the schedule's slot a scheduled run is for (partitions are computed from it)
    scheduled_at       timestamptz,
    -- {"ds": "2024-01-01"}: only rows of that partition are written and tombstoned; {} is all
    partition_spec     jsonb       NOT NULL DEFAULT '{}'::jsonb,
    definition_version bigint      NOT NULL,
    state              text        NOT NULL DEFAULT 'QUEUED',
    attempt            integer     NOT NULL DEFAULT 0,
    not_before         timestamptz NOT NULL DEFAULT now(),
    -- {"topic": {"0": 42, "1": 7}}: each source read up to (excluding) these offsets
    source_bounds      jsonb,
    bounds_at          timestamptz,
    -- the table topic's end offsets when the refresh started: what the refresh wrote is after
    sink_marks         jsonb,
    pipeline_name      text,
    job_id             text,
    submitted          boolean     NOT NULL DEFAULT false,
    requested_at       timestamptz NOT NULL DEFAULT now(),
    started_at         timestamptz,
    ended_at           timestamptz,
    rows_written       bigint,
    tombstones_written bigint,
    error              text,
    UNIQUE (table_id, number),
    CONSTRAINT table_refresh_trigger CHECK (trigger IN ('SCHEDULE', 'CATCH_UP', 'MANUAL',
        'ON_CREATE')),
    CONSTRAINT table_refresh_state CHECK (state IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED',
        'CANCELLED'))
);

-- Never two refreshes of one table at once: at most one that has not ended.
CREATE UNIQUE INDEX table_refresh_active ON table_refresh (table_id)
    WHERE state IN ('QUEUED', 'RUNNING');

-- A schedule's slot runs once, even if a recovered scheduler fires it again.
CREATE UNIQUE INDEX table_refresh_slot ON table_refresh (table_id, scheduled_at)
    WHERE trigger IN ('SCHEDULE', 'CATCH_UP');
