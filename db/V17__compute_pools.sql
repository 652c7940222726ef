-- Compute pools: the Flink clusters tables run on, besides the configured one (the pool
-- 'default', which is not stored). A table names its pool with WITH ('compute-pool' = '...').
CREATE TABLE compute_pool (
    name            text PRIMARY KEY CHECK (name ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'
                                            AND name <> 'default'),
    rest_url        text        NOT NULL,
    sql_gateway_url text        NOT NULL,
    -- the parallelism its jobs are submitted with; NULL: the cluster's parallelism.default
    parallelism     integer CHECK (parallelism > 0),
    -- the most task slots our jobs may take there; NULL: as many as the cluster has
    max_slots       integer CHECK (max_slots >= 0),
    created_by      text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- A drain under way: every table placed on the pool is moved to to_pool, one at a time
-- (ComputePoolDrains). The pool 'default' can be drained too, so the row is keyed by name only.
CREATE TABLE compute_pool_drain (
    pool        text PRIMARY KEY,
    to_pool     text        NOT NULL CHECK (to_pool <> pool),
    started_by  text        NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    moved       integer     NOT NULL DEFAULT 0,
    -- the table moved last (catalog.database.name), until its job runs on to_pool
    moving      text,
    last_error  text,
    -- the replica stepping it, until when
    owner       text,
    lease_until timestamptz
);

-- What a database may take of a pool: tables placed there, and task slots their jobs take.
CREATE TABLE database_pool_quota (
    database_id bigint  NOT NULL REFERENCES catalog_database (id) ON DELETE CASCADE,
    pool        text    NOT NULL,
    max_tables  integer CHECK (max_tables >= 0),
    max_slots   integer CHECK (max_slots >= 0),
    updated_by  text    NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (database_id, pool)
);
