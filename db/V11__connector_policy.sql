-- A catalog's connector policy as an admin set it through the API (PUT
-- /v1/catalogs/{catalog}/connector-policy); a catalog without a row has the configured one.
CREATE TABLE connector_policy (
    catalog     text PRIMARY KEY,
    policy      jsonb       NOT NULL,
    updated_by  text        NOT NULL,
    updated_at  timestamptz NOT NULL
);
