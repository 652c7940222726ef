-- Source tables now keep the whole parsed schema (columns of every kind, watermark, primary key)
-- in one document, as the statement language produces it, plus the table comment.
ALTER TABLE source_table RENAME COLUMN columns TO table_schema;
ALTER TABLE source_table DROP COLUMN watermark;
ALTER TABLE source_table ADD COLUMN comment text;
