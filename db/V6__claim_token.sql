-- Every claim of a row gets a fresh token; status writes and side-effect decisions carry it, so a
-- pass whose lease expired (and whose row another replica claimed) changes nothing.
ALTER TABLE materialized_table ADD COLUMN claim_token uuid;
