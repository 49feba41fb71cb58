--
-- partitions: many files.  Hive-style "key=value" folders give partition
-- columns, quals on them prune whole files at plan time, a column with
-- filename_column 'true' holds each row's file, "**" in patterns matches
-- any number of folders.
--
-- test/data/pruning/partitions (test/data/pruning/make_partitions.mjs, DuckDB):
-- sales/year=Y/region=R/data_0.parquet: id = i (1..600), amount =
-- i * 10 % 997, year = 2022 + i % 3, region = eu for even i, us for odd
-- (6 files of 100 rows); nested/events/day=D/data_0.parquet: id = i
-- (1..90), day = 2024-01-01 + i % 3 (3 files of 30 rows).  Partition
-- columns are only in the folder names.  Expected values follow from the
-- formulas (checked row by row below).
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set sales :abs_srcdir '/test/data/pruning/partitions/sales'
\set events :abs_srcdir '/test/data/pruning/partitions/**/day=*/*.parquet'
\set sales2 :abs_srcdir '/test/data/pruning/partitions/**/sales/**/*.parquet'
SET datestyle = 'ISO, YMD';
SET parquet_fdw.enable_aggregate_pushdown = off;

CREATE FUNCTION part_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    CONTINUE WHEN ln ~ 'Parquet Files?:';
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

-- an error's SQLSTATE and message, paths reduced to file names
CREATE FUNCTION part_try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN regexp_replace(SQLSTATE || ': ' || SQLERRM, '/[^ ,"]*/', '', 'g');
END $$;

CREATE SERVER part_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE sales (id bigint, amount bigint, year int, region text,
                            file text OPTIONS (filename_column 'true'))
  SERVER part_srv OPTIONS (filename :'sales');

-- ===== partition and filename columns
SELECT count(*), sum(id), sum(amount), count(DISTINCT file) FROM sales;
SELECT year, region, count(*), min(id), max(id) FROM sales GROUP BY 1, 2 ORDER BY 1, 2;
-- every row agrees with the formulas and with its file's folders
SELECT count(*) AS wrong FROM sales
 WHERE year <> 2022 + id % 3
    OR region <> CASE WHEN id % 2 = 0 THEN 'eu' ELSE 'us' END
    OR amount <> id * 10 % 997
    OR file <> :'sales' || '/year=' || year || '/region=' || region || '/data_0.parquet';
SELECT regexp_replace(file, '^.*/partitions/', '') AS file, count(*)
  FROM sales GROUP BY 1 ORDER BY 1;

-- ===== file pruning at plan time
SELECT part_explain('SELECT count(*) FROM sales WHERE year = 2023');
-- year 2023: i % 3 = 1, i = 1, 4, ..., 598: 200 rows, sum 3 * 19900 + 200
SELECT count(*), sum(id) FROM sales WHERE year = 2023;
-- text partitions compare under the column's collation (no statistics)
SELECT part_explain('SELECT count(*) FROM sales WHERE year >= 2023 AND region = ''eu''');
-- i % 3 in (1, 2) and i even: i % 6 in (2, 4): 200 rows
SELECT count(*), sum(id) FROM sales WHERE year >= 2023 AND region = 'eu';
SELECT part_explain('SELECT count(*) FROM sales WHERE region IN (''us'', ''xx'') AND year < 2024');
SELECT count(*), sum(id) FROM sales WHERE region IN ('us', 'xx') AND year < 2024;
SELECT part_explain('SELECT count(*) FROM sales WHERE year IN (2022, 2024) OR year IS NULL');
SELECT count(*) FROM sales WHERE year IN (2022, 2024) OR year IS NULL;
SELECT part_explain('SELECT count(*) FROM sales WHERE region IS NULL');
SELECT count(*) FROM sales WHERE region IS NULL;
-- the filename column prunes too
SELECT part_explain('SELECT count(*) FROM sales WHERE file = ''' || :'sales' || '/year=2024/region=us/data_0.parquet''');
SELECT count(*), min(id) FROM sales WHERE file = :'sales' || '/year=2024/region=us/data_0.parquet';
-- parameters prune files at run time (generic plan)
CREATE FUNCTION part_analyze(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    -- PostgreSQL 18 shows planning buffers and rows=N.00: read as 15 prints
    CONTINUE WHEN ln ~ '^ *(Planning:|Buffers: )';
    ln := regexp_replace(ln, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    CONTINUE WHEN ln ~ 'Parquet Files?:|Peak Memory';
    RETURN NEXT ln;
  END LOOP;
END $$;
SET plan_cache_mode = force_generic_plan;
PREPARE py(int) AS SELECT count(*), sum(id) FROM sales WHERE year = $1;
SELECT part_analyze('EXECUTE py(2024)');
EXECUTE py(2024);
DEALLOCATE py;
RESET plan_cache_mode;
DROP FUNCTION part_analyze(text);

-- ===== "**": any number of folders, none included
CREATE FOREIGN TABLE events (id bigint, day date) SERVER part_srv
  OPTIONS (filename :'events');
SELECT day, count(*), sum(id) FROM events GROUP BY day ORDER BY day;
SELECT part_explain('SELECT count(*) FROM events WHERE day = ''2024-01-02''');
SELECT count(*), sum(id) FROM events WHERE day = '2024-01-02';
CREATE FOREIGN TABLE sales2 (id bigint, year int) SERVER part_srv
  OPTIONS (filename :'sales2');
SELECT count(*), sum(id), sum(year) FROM sales2;
-- a trailing "**" matches the folder and every folder below it: each
-- file is read once
\set sales3 :abs_srcdir '/test/data/pruning/partitions/sales/**'
ALTER FOREIGN TABLE sales2 OPTIONS (SET filename :'sales3');
SELECT count(*), sum(id), sum(year) FROM sales2;

-- the table option filename_column names the column instead
CREATE FOREIGN TABLE events_f (id bigint, day date, src text) SERVER part_srv
  OPTIONS (filename :'events', filename_column 'src');
SELECT day, regexp_replace(src, '^.*/partitions/', '') AS src, count(*)
  FROM events_f GROUP BY 1, 2 ORDER BY 1;
SELECT part_try('ALTER FOREIGN TABLE events_f OPTIONS (SET filename_column '''')');

-- ===== inferred tables: partition keys the files lack, typed by their
-- values (year: bigint, region: text, day: date)
CREATE FUNCTION part_columns(tbl regclass) RETURNS TABLE (col name, type text)
LANGUAGE sql AS $$
  SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
   WHERE attrelid = tbl AND attnum > 0 AND NOT attisdropped ORDER BY attnum
$$;
SELECT parquet_create_foreign_table('sales_auto', 'part_srv', :'sales');
SELECT * FROM part_columns('sales_auto');
SELECT year, region, count(*), sum(id) FROM sales_auto WHERE year = 2024
 GROUP BY 1, 2 ORDER BY 1, 2;
SELECT parquet_create_foreign_table('events_auto', 'part_srv', :'events');
SELECT * FROM part_columns('events_auto');
-- escaped (%2D3 is -3) and NULL (__HIVE_DEFAULT_PARTITION__) values;
-- each folder holds a copy of sales' year=2022/region=eu file
\set nulls :abs_srcdir '/test/data/pruning/partitions/nulls'
SELECT parquet_create_foreign_table('nulls_auto', 'part_srv', :'nulls');
SELECT * FROM part_columns('nulls_auto');
SELECT k, count(*), sum(id) FROM nulls_auto GROUP BY k ORDER BY k;
SELECT part_explain('SELECT count(*) FROM nulls_auto WHERE k IS NULL');
SELECT part_explain('SELECT count(*) FROM nulls_auto WHERE k < 0');
SELECT count(*), min(k) FROM nulls_auto WHERE k < 0;
-- IMPORT FOREIGN SCHEMA: a table per subfolder, reading all its files
\set root :abs_srcdir '/test/data/pruning/partitions'
CREATE SCHEMA imp_parts;
IMPORT FOREIGN SCHEMA :"root" FROM SERVER part_srv INTO imp_parts;
SELECT c.relname, p.col, p.type
  FROM pg_class c, part_columns(c.oid) p
 WHERE c.relnamespace = 'imp_parts'::regnamespace ORDER BY c.relname;
SELECT day, count(*) FROM imp_parts.nested GROUP BY day ORDER BY day;
SELECT count(*), sum(year), count(DISTINCT region) FROM imp_parts.sales;
SELECT part_try(format('SELECT parquet_create_foreign_table(%L, %L, %L)',
                       'none_auto', 'part_srv', :'root' || '/*.nothing'));
DROP SCHEMA imp_parts CASCADE;
DROP FUNCTION part_columns(regclass);

-- ===== errors: a partition value the column's type cannot read
CREATE FOREIGN TABLE events_bad (id bigint, day int) SERVER part_srv
  OPTIONS (filename :'events');
SELECT part_try('SELECT day FROM events_bad LIMIT 1');
ALTER FOREIGN TABLE sales ALTER COLUMN file OPTIONS (SET filename_column 'maybe');

DROP SERVER part_srv CASCADE;
DROP FUNCTION part_explain(text);
DROP FUNCTION part_try(text);
