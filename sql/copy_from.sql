--
-- copy_from: COPY table FROM 'file, pattern or folder' | STDIN
-- (FORMAT parquet).  Every load is compared with the same files read
-- through a foreign table (the reader the COPY shares), row for row,
-- EXCEPT ALL both ways.
--
-- test/data/scan/rowgroups.parquet (test/data/scan/make_data.mjs): 20480
-- rows in 10 row groups; id = 1..20480, grp = (id - 1) / 2048, n = id
-- except NULL in row group 3, d, ts, f = id / 4.0, s = 's' || lpad(id, 5, '0').
-- test/data/pruning/partitions/sales (make_partitions.mjs): year=Y/region=R
-- folders, id and amount in the files, year and region only in the paths.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set sales :abs_srcdir '/test/data/pruning/partitions/sales'
\set sales_glob :abs_srcdir '/test/data/pruning/partitions/sales/year=2023/*/*.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
LOAD 'parquet_fdw';

-- the error of a statement: SQLSTATE, message and context, paths cut to
-- file names
CREATE FUNCTION cf_try(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
  ctx text;
BEGIN
  EXECUTE query;
  RETURN NEXT 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT SQLSTATE || ': ' || regexp_replace(msg, '/[^"]*/', '', 'g');
  RETURN QUERY SELECT 'CONTEXT: ' || regexp_replace(l, '/[^"]*/', '', 'g')
    FROM regexp_split_to_table(ctx, E'\n') l WHERE l ~ '^COPY';
END $$;

CREATE SERVER cf_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE cf_rg (id int, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER cf_srv OPTIONS (filename :'rg');

-- ===== by name, every column
CREATE TABLE cf_t (id int, grp int, n int, d date, ts timestamp, f float8, s text);
COPY cf_t FROM :'rg' (FORMAT parquet);
SELECT count(*), sum(id), count(n) FROM cf_t;
SELECT count(*) AS missing FROM (SELECT * FROM cf_rg EXCEPT ALL SELECT * FROM cf_t) x;
SELECT count(*) AS extra FROM (SELECT * FROM cf_t EXCEPT ALL SELECT * FROM cf_rg) x;
-- the format is inferred from the .parquet name
TRUNCATE cf_t;
COPY cf_t FROM :'rg';
SELECT count(*) FROM cf_t;

-- ===== columns in another order, other types (cast as the foreign tables
-- cast), a column list: the others get their defaults
CREATE TABLE cf_t2 (s varchar(10), id bigint, note text DEFAULT 'loaded',
                 f numeric(10,2), d text, serial_no serial);
COPY cf_t2 (f, s, id, d) FROM :'rg' (FORMAT parquet);
CREATE FOREIGN TABLE cf_rg2 (s varchar(10), id bigint, f numeric(10,2), d text)
  SERVER cf_srv OPTIONS (filename :'rg');
SELECT count(*) AS missing FROM
  (SELECT s, id, f, d FROM cf_rg2 EXCEPT ALL SELECT s, id, f, d FROM cf_t2) x;
SELECT count(*) AS extra FROM
  (SELECT s, id, f, d FROM cf_t2 EXCEPT ALL SELECT s, id, f, d FROM cf_rg2) x;
SELECT count(*) FILTER (WHERE note = 'loaded') AS defaults,
       count(DISTINCT serial_no) AS serials FROM cf_t2;
SELECT * FROM cf_t2 ORDER BY id LIMIT 2;

-- ===== by position: the i-th column reads the i-th field
CREATE TABLE cf_t3 (a int, b int, c int, dd date, e timestamp, ff float8, g text);
COPY cf_t3 FROM :'rg' (FORMAT parquet, match_by 'position');
SELECT count(*) AS missing FROM (SELECT * FROM cf_rg EXCEPT ALL SELECT * FROM cf_t3) x;
SELECT count(*) AS extra FROM (SELECT * FROM cf_t3 EXCEPT ALL SELECT * FROM cf_rg) x;
-- MATCH_BY in capitals, a column list by position (the 7th column listed
-- reads the 7th field, s)
CREATE TABLE cf_t4 (x1 text, x2 text, x3 text, x4 text, x5 text, x6 text, x7 text);
COPY cf_t4 (x7, x6, x5, x4, x3, x2, x1) FROM :'rg' (FORMAT parquet, MATCH_BY 'Position');
SELECT count(*) FROM cf_t4 JOIN cf_rg ON cf_t4.x7 = cf_rg.id::text AND cf_t4.x1 = cf_rg.s
  AND cf_t4.x2 = cf_rg.f::text AND cf_t4.x4 = cf_rg.d::text;

-- ===== a folder of hive partitions: key=value folders fill the columns
-- the files lack, as for a foreign table over the folder
CREATE FOREIGN TABLE cf_sales (id int, amount int, year int, region text)
  SERVER cf_srv OPTIONS (filename :'sales');
CREATE TABLE cf_sales_heap (id int, amount int, year int, region text);
COPY cf_sales_heap FROM :'sales' (FORMAT parquet);
SELECT count(*), count(DISTINCT year), count(DISTINCT region) FROM cf_sales_heap;
SELECT count(*) AS missing FROM
  (SELECT * FROM cf_sales EXCEPT ALL SELECT * FROM cf_sales_heap) x;
SELECT count(*) AS extra FROM
  (SELECT * FROM cf_sales_heap EXCEPT ALL SELECT * FROM cf_sales) x;
-- a pattern
TRUNCATE cf_sales_heap;
COPY cf_sales_heap FROM :'sales_glob' (FORMAT parquet);
SELECT year, region, count(*) FROM cf_sales_heap GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) FROM cf_sales_heap h JOIN cf_sales s USING (id, amount, year, region);

-- ===== a partitioned target: rows go to their partitions
CREATE TABLE cf_sales_part (id int, amount int, year int, region text)
  PARTITION BY LIST (year);
CREATE TABLE cf_sales_2022 PARTITION OF cf_sales_part FOR VALUES IN (2022);
CREATE TABLE cf_sales_rest PARTITION OF cf_sales_part DEFAULT;
COPY cf_sales_part FROM :'sales' (FORMAT parquet);
SELECT tableoid::regclass, min(year), max(year), count(*)
  FROM cf_sales_part GROUP BY 1 ORDER BY 1;
SELECT count(*) AS missing FROM
  (SELECT * FROM cf_sales EXCEPT ALL SELECT * FROM cf_sales_part) x;

-- ===== triggers fire, constraints hold, indexes are kept
CREATE TABLE cf_trig (id int PRIMARY KEY, s text CHECK (s <> 's00042'),
                   touched bool);
CREATE FUNCTION cf_trig_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.touched := true; RETURN NEW; END $$;
CREATE TRIGGER cf_trig_touch BEFORE INSERT ON cf_trig
  FOR EACH ROW EXECUTE FUNCTION cf_trig_touch();
CREATE TABLE cf_trig_log (n bigint);
CREATE FUNCTION cf_trig_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO cf_trig_log SELECT count(*) FROM new_rows; RETURN NULL; END $$;
CREATE TRIGGER cf_trig_count AFTER INSERT ON cf_trig
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cf_trig_count();
-- the CHECK constraint stops the load: nothing stays
SELECT cf_try(format('COPY cf_trig (id, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM cf_trig;
ALTER TABLE cf_trig DROP CONSTRAINT cf_trig_s_check;
COPY cf_trig (id, s) FROM :'rg' (FORMAT parquet);
SELECT count(*), count(*) FILTER (WHERE touched) AS touched FROM cf_trig;
SELECT * FROM cf_trig_log;
-- the primary key refuses a second load
SELECT cf_try(format('COPY cf_trig (id, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM cf_trig;
-- NOT NULL: n is NULL in row group 3
CREATE TABLE cf_nn (id int, n int NOT NULL);
SELECT cf_try(format('COPY cf_nn FROM %L (FORMAT parquet)', :'rg'));

-- ===== FROM STDIN: psql's \copy sends the file over the COPY protocol,
-- also for a role without file privileges
CREATE ROLE cf_user;
CREATE TABLE cf_t_stdin (id int, grp int, n int, d date, ts timestamp,
                      f float8, s text);
GRANT INSERT, SELECT ON cf_t_stdin TO cf_user;
SELECT current_database() AS db \gset
\setenv PGDATABASE :db
\setenv CF_FILE :rg
\! psql -X -q -c "LOAD 'parquet_fdw'" -c "SET ROLE cf_user" -c "\\copy cf_t_stdin FROM '$CF_FILE' (FORMAT parquet)"
SELECT count(*) AS missing FROM (SELECT * FROM cf_rg EXCEPT ALL SELECT * FROM cf_t_stdin) x;
SELECT count(*) AS extra FROM (SELECT * FROM cf_t_stdin EXCEPT ALL SELECT * FROM cf_rg) x;
-- a file that is not Parquet, sent over STDIN: the reader's clean error
\setenv CF_FILE :abs_srcdir/sql/copy_from.sql
\! psql -X -q -c "LOAD 'parquet_fdw'" -c "\\copy cf_t_stdin FROM '$CF_FILE' (FORMAT parquet)" 2>&1 | sed -E 's#"[^"]*pgsql_tmp[^"]*"#"(spool file)"#'
SELECT count(*) FROM cf_t_stdin;
-- the role may not read server files
SET ROLE cf_user;
SELECT cf_try(format('COPY cf_t_stdin FROM %L (FORMAT parquet)', :'rg'));
RESET ROLE;

-- ===== columns that do not match, cf_bad options, cf_bad targets
SELECT cf_try(format('COPY cf_t2 FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY cf_t2 (s, f) FROM %L (FORMAT parquet, match_by %L)', :'rg', 'position'));
SELECT cf_try(format('COPY cf_t2 (nope) FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY cf_t2 (s, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet, match_by %L)', :'rg', 'order'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet, match_by %L, match_by %L)', :'rg', 'name', 'name'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet, header true)', :'rg'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet) WHERE id > 3', :'rg'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet)', :'abs_srcdir' || '/nonexistent/*.parquet'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet)', :'abs_srcdir' || '/nonexistent.parquet'));
CREATE VIEW cf_v AS SELECT * FROM cf_t;
SELECT cf_try(format('COPY cf_v FROM %L (FORMAT parquet)', :'rg'));
-- a value the column cannot hold: the converter's error, where it is
CREATE TABLE cf_small (id int, f numeric(3,1));
SELECT cf_try(format('COPY cf_small FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM cf_small;
-- generated columns are filled, never read
CREATE TABLE cf_gen (id int, twice int GENERATED ALWAYS AS (id * 2) STORED);
COPY cf_gen FROM :'rg' (FORMAT parquet);
SELECT count(*), sum(twice) = 2 * sum(id) AS generated FROM cf_gen;
SELECT cf_try(format('COPY cf_gen (id, twice) FROM %L (FORMAT parquet)', :'rg'));

-- ===== hostile files: the reader's errors, and the server lives on
CREATE TABLE cf_bad (nation_key int, name bytea);
SELECT cf_try(format('COPY cf_bad FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet'));
CREATE TABLE cf_bad2 ("Handle" int);
SELECT cf_try(format('COPY cf_bad2 FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/PARQUET-1481.parquet'));
CREATE TABLE cf_bad3 (x int[]);
SELECT cf_try(format('COPY cf_bad3 FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/ARROW-GH-45185.parquet'));
SELECT cf_try(format('COPY cf_t FROM %L (FORMAT parquet)', :'corpus' || '/data/alltypes_plain.parquet.expected.csv'));
SELECT count(*) FROM cf_bad;
-- the function that feeds COPY cannot be called by itself
SELECT cf_try('SELECT parquet_fdw_copy_rows(NULL::cf_t)');

-- ===== a few corpus files against their foreign tables, nested types too
\set f :corpus '/data/alltypes_plain.parquet'
CREATE TABLE cf_alltypes (id int, bool_col bool, tinyint_col int, smallint_col int,
  int_col int, bigint_col bigint, float_col float4, double_col float8,
  date_string_col bytea, string_col bytea, timestamp_col timestamp);
CREATE FOREIGN TABLE cf_alltypes_ft (id int, bool_col bool, tinyint_col int,
  smallint_col int, int_col int, bigint_col bigint, float_col float4,
  double_col float8, date_string_col bytea, string_col bytea,
  timestamp_col timestamp) SERVER cf_srv OPTIONS (filename :'f');
COPY cf_alltypes FROM :'f' (FORMAT parquet);
SELECT count(*) AS rows,
       (SELECT count(*) FROM (SELECT * FROM cf_alltypes EXCEPT ALL SELECT * FROM cf_alltypes_ft) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM cf_alltypes_ft EXCEPT ALL SELECT * FROM cf_alltypes) x) AS missing
  FROM cf_alltypes;
\set f :corpus '/data/nested_lists.snappy.parquet'
CREATE TABLE cf_lists (a jsonb, b int);
CREATE FOREIGN TABLE cf_lists_ft (a jsonb, b int) SERVER cf_srv OPTIONS (filename :'f');
COPY cf_lists FROM :'f' (FORMAT parquet);
SELECT count(*) AS rows,
       (SELECT count(*) FROM (SELECT * FROM cf_lists EXCEPT ALL SELECT * FROM cf_lists_ft) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM cf_lists_ft EXCEPT ALL SELECT * FROM cf_lists) x) AS missing
  FROM cf_lists;

DROP VIEW cf_v;
DROP TABLE cf_t, cf_t2, cf_t3, cf_t4, cf_sales_heap, cf_sales_part, cf_trig, cf_trig_log, cf_nn, cf_t_stdin,
  cf_small, cf_gen, cf_bad, cf_bad2, cf_bad3, cf_alltypes, cf_lists;
DROP FUNCTION cf_trig_touch(), cf_trig_count(), cf_try(text);
DROP ROLE cf_user;
DROP SERVER cf_srv CASCADE;
