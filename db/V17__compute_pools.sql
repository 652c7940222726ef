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
