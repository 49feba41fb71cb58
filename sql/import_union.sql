--
-- import_union: one table over files whose schemas differ.  Inferred
-- columns are the union by name of the files' fields, types widened where
-- the files differ; a file without a column reads it as NULL (declared
-- tables too); a column no file has, and types that do not widen, are
-- errors naming them.
--
-- test/data/import/drift (test/data/import/make_import.mjs, DuckDB):
--   part-0.parquet  i = 1..100:   id int32 = i, a int16 = i % 100,
--                   f float = i / 4, d decimal(5,2) = i * 0.25,
--                   day date = 2024-01-01 + i days
--   part-1.parquet  i = 101..250: id int64 = i, a int32 = i * 1000,
--                   f double = i / 3, d decimal(12,4) = i * 1.0625,
--                   day timestamp = 2024-01-01 + i hours, extra = 'x' || i
--   part-2.parquet  i = 251..300: id int64 = i, extra = 'y' || i
-- test/data/import/conflict: a.parquet (id int32, v string),
--   b.parquet (id int32, v int32).
-- Every scan is compared row by row with a heap table built from the same
-- formulas.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set drift :abs_srcdir '/test/data/import/drift'
\set conflict :abs_srcdir '/test/data/import/conflict'
\set sales :abs_srcdir '/test/data/import/tree/sales'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;

CREATE SERVER union_srv FOREIGN DATA WRAPPER parquet_fdw;

-- the columns of a table, with types
CREATE FUNCTION union_columns(rel regclass)
RETURNS TABLE (col name, type text) LANGUAGE sql AS $$
  SELECT a.attname, format_type(a.atttypid, a.atttypmod)
    FROM pg_attribute a
   WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped
   ORDER BY a.attnum
$$;

-- rows of query q missing from query expected and the reverse (0, 0: the
-- same rows), and whether the aggregate pushdown answered q
CREATE FUNCTION union_same(q text, expected text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pushed boolean := false;
  ln text;
  missing bigint;
  extra bigint;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF ln ~ 'Aggregate Pushdown' THEN pushed := true; END IF;
  END LOOP;
  EXECUTE 'SELECT count(*) FROM ((' || expected || ') EXCEPT ALL (' || q || ')) d' INTO missing;
  EXECUTE 'SELECT count(*) FROM ((' || q || ') EXCEPT ALL (' || expected || ')) d' INTO extra;
  RETURN missing || ' missing, ' || extra || ' extra' ||
         CASE WHEN pushed THEN ', pushed down' ELSE '' END;
END $$;

-- an error's SQLSTATE, message and detail, paths reduced to file names
CREATE FUNCTION union_try(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
  detail text;
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RETURN regexp_replace(SQLSTATE || ': ' || msg || ' / ' || detail,
                        '/[^ ,"]*/', '', 'g');
END $$;

-- the expected rows
CREATE TABLE drift_heap AS
SELECT i::bigint AS id, (i % 100)::int AS a, (i / 4.0)::float8 AS f,
       (i * 0.25)::numeric(12,4) AS d,
       ('2024-01-01'::date + i)::timestamp AS day, NULL::text AS extra
  FROM generate_series(1, 100) i
UNION ALL
SELECT i, i * 1000, i / 3.0::float8, i * 1.0625,
       '2024-01-01'::timestamp + make_interval(hours => i), 'x' || i
  FROM generate_series(101, 250) i
UNION ALL
SELECT i, NULL, NULL, NULL, NULL, 'y' || i
  FROM generate_series(251, 300) i;

-- ===== inference: the union by name, types widened
SELECT parquet_create_foreign_table('drift', 'union_srv', :'drift');
SELECT * FROM union_columns('drift');
-- every row, the missing columns NULL in the files that lack them
SELECT union_same('SELECT * FROM drift', 'SELECT * FROM drift_heap');
SELECT union_same('SELECT id, extra FROM drift WHERE id BETWEEN 95 AND 105',
                  'SELECT id, extra FROM drift_heap WHERE id BETWEEN 95 AND 105');
SELECT union_same('SELECT count(*), count(a), count(f), count(d), count(day), count(extra), sum(a), sum(d) FROM drift',
                  'SELECT count(*), count(a), count(f), count(d), count(day), count(extra), sum(a), sum(d) FROM drift_heap');
-- IMPORT FOREIGN SCHEMA infers the same table
CREATE SCHEMA union_imp;
\set import_root :abs_srcdir '/test/data/import'
IMPORT FOREIGN SCHEMA :"import_root" LIMIT TO (drift) FROM SERVER union_srv INTO union_imp;
SELECT * FROM union_columns('union_imp.drift');
SELECT union_same('SELECT * FROM union_imp.drift', 'SELECT * FROM drift_heap');
-- a pattern: only the files it matches make the columns
\set some :drift '/part-[02].parquet'
SELECT parquet_create_foreign_table('drift_some', 'union_srv', :'some');
SELECT * FROM union_columns('drift_some');
SELECT union_same('SELECT * FROM drift_some',
                  'SELECT id, a, f, d, day, extra FROM drift_heap WHERE id <= 100 OR id > 250');

-- ===== declared tables: a column a file lacks is NULL there
CREATE FOREIGN TABLE drift_decl (id bigint, extra text, d numeric)
  SERVER union_srv OPTIONS (filename :'drift');
SELECT union_same('SELECT * FROM drift_decl', 'SELECT id, extra, d FROM drift_heap');
-- the aggregate pushdown counts no value in the file without the column
SELECT union_same('SELECT count(extra) FROM drift_decl', 'SELECT count(extra) FROM drift_heap');
SELECT union_same('SELECT count(*), count(extra) FROM drift_decl',
                  'SELECT count(*), count(extra) FROM drift_heap');
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT union_same('SELECT count(*), count(extra) FROM drift_decl',
                  'SELECT count(*), count(extra) FROM drift_heap');
RESET parquet_fdw.enable_aggregate_pushdown;
-- filters on a column the file lacks: NULL matches no comparison
SELECT union_same('SELECT id FROM drift_decl WHERE extra >= ''y''',
                  'SELECT id FROM drift_heap WHERE extra >= ''y''');
SELECT union_same('SELECT id FROM drift_decl WHERE extra IS NULL',
                  'SELECT id FROM drift_heap WHERE extra IS NULL');
-- a column in none of the files: most likely misspelt, an error naming it
CREATE FOREIGN TABLE drift_typo (id bigint, extar text)
  SERVER union_srv OPTIONS (filename :'drift');
SELECT union_try('SELECT count(*) FROM drift_typo');
CREATE FOREIGN TABLE drift_typo2 (id bigint, ex text OPTIONS (column_name 'extar'))
  SERVER union_srv OPTIONS (filename :'drift');
SELECT union_try('SELECT id FROM drift_typo2');
-- ... NULL when the table says so
ALTER FOREIGN TABLE drift_typo OPTIONS (ADD missing_columns 'null');
SELECT union_same('SELECT id, extar FROM drift_typo', 'SELECT id, NULL::text FROM drift_heap');
-- ... also when partition pruning leaves only files without the column:
-- the other files are looked at before the error
CREATE FOREIGN TABLE sales_typo (id bigint, year int, regoin text)
  SERVER union_srv OPTIONS (filename :'sales');
SELECT union_try('SELECT count(*) FROM sales_typo WHERE year = 2023');
SELECT union_try('SELECT count(*) FROM sales_typo WHERE year = 1999');
CREATE FOREIGN TABLE sales_ok (id bigint, year int, region text)
  SERVER union_srv OPTIONS (filename :'sales');
SELECT union_try('SELECT count(*) FROM sales_ok WHERE year = 1999');
-- missing_columns 'error': every file must have every column
ALTER FOREIGN TABLE drift_decl OPTIONS (ADD missing_columns 'error');
SELECT union_try('SELECT id FROM drift_decl');

-- ===== types that do not widen: an error naming the column and both files
SELECT union_try($$SELECT parquet_create_foreign_table('conflict', 'union_srv', '$$ || :'conflict' || $$')$$);
SELECT to_regclass('conflict');

-- ===== Amudai shards: the same union over shards of differing schemas
SELECT current_setting('data_directory') || '/pf_union_0.amudai.shard' AS shard0,
       current_setting('data_directory') || '/pf_union_1.amudai.shard' AS shard1,
       current_setting('data_directory') || '/pf_union_*.amudai.shard' AS shards
\gset
SELECT parquet_fdw_write_amudai(
  'SELECT id::int AS id, a::int2 AS a, f::float4 AS f, d::numeric(5,2) AS d FROM drift_heap WHERE id <= 100 ORDER BY id',
  :'shard0');
SELECT parquet_fdw_write_amudai(
  'SELECT id, a, f, d, extra FROM drift_heap WHERE id > 100 ORDER BY id', :'shard1');
SELECT parquet_create_foreign_table('drift_am', 'union_srv', :'shards');
SELECT * FROM union_columns('drift_am');
SELECT union_same('SELECT * FROM drift_am', 'SELECT id, a, f, d, extra FROM drift_heap');
CREATE FOREIGN TABLE drift_am_decl (id bigint, extra text)
  SERVER union_srv OPTIONS (filename :'shards');
SELECT union_same('SELECT count(*), count(extra) FROM drift_am_decl',
                  'SELECT count(*), count(extra) FROM drift_heap');
SELECT union_same('SELECT * FROM drift_am_decl', 'SELECT id, extra FROM drift_heap');
CREATE FOREIGN TABLE drift_am_typo (id bigint, extar text)
  SERVER union_srv OPTIONS (filename :'shards');
SELECT union_try('SELECT count(*) FROM drift_am_typo');

-- only the first 100 files in path order make the columns: a field only
-- the 101st file has is no column (its files still read the others)
DO $$
BEGIN
  FOR k IN 0..100 LOOP
    PERFORM parquet_fdw_write_amudai(
      format('SELECT %s::bigint AS id', k) ||
        CASE WHEN k = 100 THEN ', ''late''::text AS late' ELSE '' END,
      current_setting('data_directory') || format('/pf_sample_%s.amudai.shard', lpad(k::text, 3, '0')));
  END LOOP;
END $$;
SELECT parquet_create_foreign_table('sampled', 'union_srv',
  current_setting('data_directory') || '/pf_sample_*.amudai.shard');
SELECT * FROM union_columns('sampled');
SELECT union_same('SELECT * FROM sampled', 'SELECT generate_series(0, 100)::bigint');
-- ... the same file among fewer makes its column
SELECT parquet_create_foreign_table('sampled_few', 'union_srv',
  current_setting('data_directory') || '/pf_sample_[01][0-9]0.amudai.shard');
SELECT * FROM union_columns('sampled_few');
SELECT union_same('SELECT * FROM sampled_few',
                  'SELECT k::bigint, CASE WHEN k = 100 THEN ''late'' END FROM generate_series(0, 100, 10) k');

DROP SCHEMA union_imp CASCADE;
DROP SERVER union_srv CASCADE;
DROP TABLE drift_heap;
DROP FUNCTION union_columns(regclass);
DROP FUNCTION union_same(text, text);
DROP FUNCTION union_try(text);
