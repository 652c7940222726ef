-- Sessions of the status page: the browser's cookie holds a random token of its own, never the API
-- key it signed in with. Only the token's SHA-256 is kept. A session made with an API key lives
-- no longer than that key: it ends when the key is revoked or expires (checked at every use). A
-- session made with a JWT keeps the token's caller and ends when the token expires.
CREATE TABLE ui_session (
    id          uuid PRIMARY KEY,
    token_hash  text        NOT NULL UNIQUE,
    api_key_id  uuid        REFERENCES api_key (id),
    caller_name text        NOT NULL,
    grants      text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX ui_session_key ON ui_session (api_key_id);
