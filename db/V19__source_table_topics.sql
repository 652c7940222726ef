-- The topics a source table's 'topic' option names ('a;b' names two, spaces around each trimmed),
-- kept by PostgreSQL itself and indexed: a new table's topic must not be read by another database's
-- source table, and a new source table's topics must be its database's, so every CREATE asks which
-- source tables read a topic. Without this, each such question read every source table of every
-- catalog. A 'topic-pattern' source has no list here (NULL); patterns are checked against all.
ALTER TABLE source_table
    ADD COLUMN topics text[] GENERATED ALWAYS AS (
        regexp_split_to_array(regexp_replace(options ->> 'topic', '^\s+|\s+$', '', 'g'), '\s*;\s*')
    ) STORED;

CREATE INDEX source_table_topics ON source_table USING gin (topics);
