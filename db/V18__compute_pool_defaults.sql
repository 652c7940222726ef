-- The compute pool a new table runs on when its statement names none: its database's default,
-- else its catalog's, else 'default'. A table is placed when it is created (the pool is written into
-- its definition's options); changing a default later moves no table.
CREATE TABLE compute_pool_default (
    catalog_id  bigint      NOT NULL REFERENCES catalog (id) ON DELETE CASCADE,
    -- NULL: the catalog's default
    database_id bigint      REFERENCES catalog_database (id) ON DELETE CASCADE,
    pool        text        NOT NULL,
    updated_by  text        NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX compute_pool_default_scope
    ON compute_pool_default (catalog_id, (COALESCE(database_id, 0)));
