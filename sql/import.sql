--
-- import: IMPORT FOREIGN SCHEMA over a folder and
-- parquet_create_foreign_table(), with columns from the files' schemas.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/data'
\set data :abs_srcdir '/test/data/scan'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

CREATE SERVER import_srv FOREIGN DATA WRAPPER parquet_fdw;

-- the columns of every foreign table of a schema, with types and options
CREATE FUNCTION columns_of(nsp text)
RETURNS TABLE (tbl name, col name, type text, filename text) LANGUAGE sql AS $$
  SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
         regexp_replace(array_to_string(ft.ftoptions, ' '), '/[^ ,"]*/', '', 'g')
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_foreign_table ft ON ft.ftrelid = c.oid
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
   WHERE n.nspname = nsp
   ORDER BY c.relname, a.attnum
$$;

-- ===== IMPORT FOREIGN SCHEMA "<folder>"
CREATE SCHEMA imp;
IMPORT FOREIGN SCHEMA :"corpus" LIMIT TO (alltypes_plain, int32_decimal,
    list_columns, "nested_maps.snappy", "no such file")
  FROM SERVER import_srv INTO imp;
SELECT * FROM columns_of('imp');
-- the tables read
SELECT * FROM imp.alltypes_plain ORDER BY id LIMIT 2;
SELECT * FROM imp.int32_decimal ORDER BY value LIMIT 3;
SELECT * FROM imp.list_columns;
SELECT count(*) FROM imp."nested_maps.snappy";
-- EXCEPT, and a folder with one file
CREATE SCHEMA imp2;
IMPORT FOREIGN SCHEMA :"data" EXCEPT (rowgroups) FROM SERVER import_srv INTO imp2;
SELECT count(*) FROM columns_of('imp2');
IMPORT FOREIGN SCHEMA :"data" FROM SERVER import_srv INTO imp2;
SELECT * FROM columns_of('imp2');
SELECT count(*), sum(id) FROM imp2.rowgroups;
-- errors: a folder that does not exist, a file instead of a folder
IMPORT FOREIGN SCHEMA "/nonexistent/folder" FROM SERVER import_srv INTO imp2;  -- ERROR
-- privileges
CREATE ROLE parquet_import_user;
GRANT USAGE ON FOREIGN SERVER import_srv TO parquet_import_user;
GRANT ALL ON SCHEMA imp2 TO parquet_import_user;
SET ROLE parquet_import_user;
IMPORT FOREIGN SCHEMA :"data" FROM SERVER import_srv INTO imp2;  -- ERROR
RESET ROLE;
REVOKE ALL ON SCHEMA imp2 FROM parquet_import_user;
REVOKE USAGE ON FOREIGN SERVER import_srv FROM parquet_import_user;
DROP ROLE parquet_import_user;

-- ===== parquet_create_foreign_table(table, server, file)
\set f :corpus '/nullable.impala.parquet'
SELECT parquet_create_foreign_table('Impala Nullable', 'import_srv', :'f');
SELECT * FROM columns_of('public');
SELECT id, int_array, int_map FROM "Impala Nullable" ORDER BY id;
-- errors: the table exists, no such server, no such file
SELECT parquet_create_foreign_table('Impala Nullable', 'import_srv', :'f');  -- ERROR
SELECT parquet_create_foreign_table('t', 'no_server', :'f');  -- ERROR
\set VERBOSITY sqlstate
SELECT parquet_create_foreign_table('t', 'import_srv', '/nonexistent/x.parquet');  -- ERROR
\set VERBOSITY default

DROP SCHEMA imp CASCADE;
DROP SCHEMA imp2 CASCADE;
DROP SERVER import_srv CASCADE;
DROP FUNCTION columns_of(text);
