-- API keys: only the SHA-256 of a key's secret is kept (the secret is shown once, when the key is
-- created), with its first characters so that people can tell keys apart. A key's grants are
-- role:catalog.database lines. Revoked keys stay, for the audit log's sake.
CREATE TABLE api_key (
    id          uuid PRIMARY KEY,
    name        text        NOT NULL,
    key_hash    text        NOT NULL UNIQUE,
    prefix      text        NOT NULL,
    grants      text        NOT NULL,
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz,
    revoked_at  timestamptz
);
CREATE UNIQUE INDEX api_key_active_name ON api_key (name) WHERE revoked_at IS NULL;

-- Who did what to which resource and when: every change with the canonical definition before and
-- after it, and every refused attempt with its status and problem code. Appended to, never updated.
CREATE TABLE audit_event (
    id                bigserial PRIMARY KEY,
    at                timestamptz NOT NULL,
    principal         text        NOT NULL,
    action            text        NOT NULL,
    resource          text        NOT NULL,
    outcome           text        NOT NULL,
    status            integer,
    code              text,
    detail            text,
    before_definition text,
    after_definition  text
);
CREATE INDEX audit_event_resource ON audit_event (resource, id);
CREATE INDEX audit_event_principal ON audit_event (principal, id);
