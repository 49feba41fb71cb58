--
-- import_hive: IMPORT FOREIGN SCHEMA over hive-style datasets and over a
-- folder with one entry of each kind; every entry that makes no table
-- gets a NOTICE saying why.
--
-- test/data/import/tree (test/data/import/make_import.mjs, DuckDB):
--   sales/year=Y/region=R/data.parquet  i = 1..60: id = i,
--       amount = i * 7 % 101, year = 2023 + i % 2,
--       region = 'eu' when i % 3 = 0 else 'us' (only in the folder names);
--       sales/_SUCCESS (empty)
--   flat.parquet  i = 1..5: id = i, name = 'n' || i
--   notes/README.txt (a folder without Parquet files), README.txt,
--   _tmp/flat.parquet, .hidden.parquet, day=1/flat.parquet (a partition
--   folder next to plain folders)
-- Scans are compared row by row with heap tables built from the formulas.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set tree :abs_srcdir '/test/data/import/tree'
\set sales :tree '/sales'
\set year2024 :sales '/year=2024'
\set notes :tree '/notes'
SET datestyle = 'ISO, YMD';

CREATE SERVER hive_srv FOREIGN DATA WRAPPER parquet_fdw;

-- the columns of every foreign table of a schema, with the filename
-- option's last folder and file
CREATE FUNCTION hive_columns(nsp text)
RETURNS TABLE (tbl name, col name, type text, filename text) LANGUAGE sql AS $$
  SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
         regexp_replace(array_to_string(ft.ftoptions, ' '), '/.*/(import/)?', '/')
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_foreign_table ft ON ft.ftrelid = c.oid
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
   WHERE n.nspname = nsp
   ORDER BY c.relname, a.attnum
$$;

-- rows of query q missing from query expected and the reverse (0, 0: same)
CREATE FUNCTION hive_same(q text, expected text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
  extra bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM ((' || expected || ') EXCEPT ALL (' || q || ')) d' INTO missing;
  EXECUTE 'SELECT count(*) FROM ((' || q || ') EXCEPT ALL (' || expected || ')) d' INTO extra;
  RETURN missing || ' missing, ' || extra || ' extra';
END $$;

-- EXPLAIN without its file lines (the files are counted in Row Groups)
CREATE FUNCTION hive_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    CONTINUE WHEN ln ~ 'Files?:';
    RETURN NEXT ln;
  END LOOP;
END $$;

CREATE TABLE sales_heap AS
SELECT i::bigint AS id, (i * 7 % 101)::bigint AS amount, (2023 + i % 2)::bigint AS year,
       CASE WHEN i % 3 = 0 THEN 'eu' ELSE 'us' END AS region
  FROM generate_series(1, 60) i;
CREATE TABLE flat_heap AS
SELECT i::bigint AS id, 'n' || i AS name FROM generate_series(1, 5) i;

-- ===== a folder with one entry of each kind: a table per Parquet file and
-- per folder holding Parquet files, a NOTICE for each other entry
CREATE SCHEMA hive_tree;
IMPORT FOREIGN SCHEMA :"tree" FROM SERVER hive_srv INTO hive_tree;
SELECT * FROM hive_columns('hive_tree');
-- the dataset below it is one table with its partition columns
SELECT hive_same('SELECT * FROM hive_tree.sales', 'SELECT * FROM sales_heap');
SELECT hive_same('SELECT * FROM hive_tree.flat', 'SELECT * FROM flat_heap');
SELECT hive_same('SELECT id, region FROM hive_tree.sales WHERE year = 2024',
                 'SELECT id, region FROM sales_heap WHERE year = 2024');
SELECT hive_same('SELECT year, region, count(*), sum(amount) FROM hive_tree.sales GROUP BY 1, 2',
                 'SELECT year, region, count(*), sum(amount) FROM sales_heap GROUP BY 1, 2');
-- LIMIT TO and EXCEPT: no NOTICE for the entries they leave out
CREATE SCHEMA hive_limit;
IMPORT FOREIGN SCHEMA :"tree" LIMIT TO (sales, notes) FROM SERVER hive_srv INTO hive_limit;
IMPORT FOREIGN SCHEMA :"tree" EXCEPT (sales, notes, "README.txt", _tmp, ".hidden.parquet", "day=1")
  FROM SERVER hive_srv INTO hive_limit;
SELECT * FROM hive_columns('hive_limit');

-- ===== the dataset root itself: one table named after it
CREATE SCHEMA hive_root;
IMPORT FOREIGN SCHEMA :"sales" FROM SERVER hive_srv INTO hive_root;
SELECT * FROM hive_columns('hive_root');
SELECT hive_same('SELECT * FROM hive_root.sales', 'SELECT * FROM sales_heap');
-- ... and one of its key=value folders: its own key is a column too
IMPORT FOREIGN SCHEMA :"year2024" FROM SERVER hive_srv INTO hive_root;
SELECT * FROM hive_columns('hive_root');
SELECT hive_same('SELECT * FROM hive_root."year=2024"',
                 'SELECT * FROM sales_heap WHERE year = 2024');
-- partition pruning works on the imported tables
SELECT hive_explain($$SELECT count(*) FROM hive_root.sales WHERE region = 'eu'$$);

-- ===== a folder without any data: every entry says why
CREATE SCHEMA hive_none;
IMPORT FOREIGN SCHEMA :"notes" FROM SERVER hive_srv INTO hive_none;
SELECT count(*) FROM hive_columns('hive_none');

DROP SCHEMA hive_tree CASCADE;
DROP SCHEMA hive_limit CASCADE;
DROP SCHEMA hive_root CASCADE;
DROP SCHEMA hive_none CASCADE;
DROP SERVER hive_srv CASCADE;
DROP TABLE sales_heap, flat_heap;
DROP FUNCTION hive_columns(text);
DROP FUNCTION hive_same(text, text);
DROP FUNCTION hive_explain(text);
