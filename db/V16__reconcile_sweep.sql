-- One row: which replica sweeps the settled tables this round, and since when (ReconcileWorker.sweep).
CREATE TABLE reconcile_sweep (
    id         integer PRIMARY KEY CHECK (id = 1),
    owner      text,
    started_at timestamptz NOT NULL
);
INSERT INTO reconcile_sweep (id, owner, started_at) VALUES (1, NULL, '-infinity');
