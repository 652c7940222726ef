-- Просмотр статуса
SHOW MATERIALIZED TABLES;

SELECT * FROM information_schema.materialized_tables;
