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
CREATE FOREIGN TABLE rg (id int, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER cf_srv OPTIONS (filename :'rg');

-- ===== by name, every column
CREATE TABLE t (id int, grp int, n int, d date, ts timestamp, f float8, s text);
COPY t FROM :'rg' (FORMAT parquet);
SELECT count(*), sum(id), count(n) FROM t;
SELECT count(*) AS missing FROM (SELECT * FROM rg EXCEPT ALL SELECT * FROM t) x;
SELECT count(*) AS extra FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM rg) x;
-- the format is inferred from the .parquet name
TRUNCATE t;
COPY t FROM :'rg';
SELECT count(*) FROM t;

-- ===== columns in another order, other types (cast as the foreign tables
-- cast), a column list: the others get their defaults
CREATE TABLE t2 (s varchar(10), id bigint, note text DEFAULT 'loaded',
                 f numeric(10,2), d text, serial_no serial);
COPY t2 (f, s, id, d) FROM :'rg' (FORMAT parquet);
CREATE FOREIGN TABLE rg2 (s varchar(10), id bigint, f numeric(10,2), d text)
  SERVER cf_srv OPTIONS (filename :'rg');
SELECT count(*) AS missing FROM
  (SELECT s, id, f, d FROM rg2 EXCEPT ALL SELECT s, id, f, d FROM t2) x;
SELECT count(*) AS extra FROM
  (SELECT s, id, f, d FROM t2 EXCEPT ALL SELECT s, id, f, d FROM rg2) x;
SELECT count(*) FILTER (WHERE note = 'loaded') AS defaults,
       count(DISTINCT serial_no) AS serials FROM t2;
SELECT * FROM t2 ORDER BY id LIMIT 2;

-- ===== by position: the i-th column reads the i-th field
CREATE TABLE t3 (a int, b int, c int, dd date, e timestamp, ff float8, g text);
COPY t3 FROM :'rg' (FORMAT parquet, match_by 'position');
SELECT count(*) AS missing FROM (SELECT * FROM rg EXCEPT ALL SELECT * FROM t3) x;
SELECT count(*) AS extra FROM (SELECT * FROM t3 EXCEPT ALL SELECT * FROM rg) x;
-- MATCH_BY in capitals, a column list by position (the 7th column listed
-- reads the 7th field, s)
CREATE TABLE t4 (x1 text, x2 text, x3 text, x4 text, x5 text, x6 text, x7 text);
COPY t4 (x7, x6, x5, x4, x3, x2, x1) FROM :'rg' (FORMAT parquet, MATCH_BY 'Position');
SELECT count(*) FROM t4 JOIN rg ON t4.x7 = rg.id::text AND t4.x1 = rg.s
  AND t4.x2 = rg.f::text AND t4.x4 = rg.d::text;

-- ===== a folder of hive partitions: key=value folders fill the columns
-- the files lack, as for a foreign table over the folder
CREATE FOREIGN TABLE sales (id int, amount int, year int, region text)
  SERVER cf_srv OPTIONS (filename :'sales');
CREATE TABLE sales_heap (id int, amount int, year int, region text);
COPY sales_heap FROM :'sales' (FORMAT parquet);
SELECT count(*), count(DISTINCT year), count(DISTINCT region) FROM sales_heap;
SELECT count(*) AS missing FROM
  (SELECT * FROM sales EXCEPT ALL SELECT * FROM sales_heap) x;
SELECT count(*) AS extra FROM
  (SELECT * FROM sales_heap EXCEPT ALL SELECT * FROM sales) x;
-- a pattern
TRUNCATE sales_heap;
COPY sales_heap FROM :'sales_glob' (FORMAT parquet);
SELECT year, region, count(*) FROM sales_heap GROUP BY 1, 2 ORDER BY 1, 2;
SELECT count(*) FROM sales_heap h JOIN sales s USING (id, amount, year, region);

-- ===== a partitioned target: rows go to their partitions
CREATE TABLE sales_part (id int, amount int, year int, region text)
  PARTITION BY LIST (year);
CREATE TABLE sales_2022 PARTITION OF sales_part FOR VALUES IN (2022);
CREATE TABLE sales_rest PARTITION OF sales_part DEFAULT;
COPY sales_part FROM :'sales' (FORMAT parquet);
SELECT tableoid::regclass, min(year), max(year), count(*)
  FROM sales_part GROUP BY 1 ORDER BY 1;
SELECT count(*) AS missing FROM
  (SELECT * FROM sales EXCEPT ALL SELECT * FROM sales_part) x;

-- ===== triggers fire, constraints hold, indexes are kept
CREATE TABLE trig (id int PRIMARY KEY, s text CHECK (s <> 's00042'),
                   touched bool);
CREATE FUNCTION trig_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.touched := true; RETURN NEW; END $$;
CREATE TRIGGER trig_touch BEFORE INSERT ON trig
  FOR EACH ROW EXECUTE FUNCTION trig_touch();
CREATE TABLE trig_log (n bigint);
CREATE FUNCTION trig_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO trig_log SELECT count(*) FROM new_rows; RETURN NULL; END $$;
CREATE TRIGGER trig_count AFTER INSERT ON trig
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION trig_count();
-- the CHECK constraint stops the load: nothing stays
SELECT cf_try(format('COPY trig (id, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM trig;
ALTER TABLE trig DROP CONSTRAINT trig_s_check;
COPY trig (id, s) FROM :'rg' (FORMAT parquet);
SELECT count(*), count(*) FILTER (WHERE touched) AS touched FROM trig;
SELECT * FROM trig_log;
-- the primary key refuses a second load
SELECT cf_try(format('COPY trig (id, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM trig;
-- NOT NULL: n is NULL in row group 3
CREATE TABLE nn (id int, n int NOT NULL);
SELECT cf_try(format('COPY nn FROM %L (FORMAT parquet)', :'rg'));

-- ===== FROM STDIN: psql's \copy sends the file over the COPY protocol,
-- also for a role without file privileges
CREATE ROLE cf_user;
CREATE TABLE t_stdin (id int, grp int, n int, d date, ts timestamp,
                      f float8, s text);
GRANT INSERT, SELECT ON t_stdin TO cf_user;
SELECT current_database() AS db \gset
\setenv PGDATABASE :db
\setenv CF_FILE :rg
\! psql -X -q -c "LOAD 'parquet_fdw'" -c "SET ROLE cf_user" -c "\\copy t_stdin FROM '$CF_FILE' (FORMAT parquet)"
SELECT count(*) AS missing FROM (SELECT * FROM rg EXCEPT ALL SELECT * FROM t_stdin) x;
SELECT count(*) AS extra FROM (SELECT * FROM t_stdin EXCEPT ALL SELECT * FROM rg) x;
-- a file that is not Parquet, sent over STDIN: the reader's clean error
\setenv CF_FILE :abs_srcdir/sql/copy_from.sql
\! psql -X -q -c "LOAD 'parquet_fdw'" -c "\\copy t_stdin FROM '$CF_FILE' (FORMAT parquet)" 2>&1 | sed -E 's#"[^"]*pgsql_tmp[^"]*"#"(spool file)"#'
SELECT count(*) FROM t_stdin;
-- the role may not read server files
SET ROLE cf_user;
SELECT cf_try(format('COPY t_stdin FROM %L (FORMAT parquet)', :'rg'));
RESET ROLE;

-- ===== columns that do not match, bad options, bad targets
SELECT cf_try(format('COPY t2 FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY t2 (s, f) FROM %L (FORMAT parquet, match_by %L)', :'rg', 'position'));
SELECT cf_try(format('COPY t2 (nope) FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY t2 (s, s) FROM %L (FORMAT parquet)', :'rg'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet, match_by %L)', :'rg', 'order'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet, match_by %L, match_by %L)', :'rg', 'name', 'name'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet, header true)', :'rg'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet) WHERE id > 3', :'rg'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet)', :'abs_srcdir' || '/nonexistent/*.parquet'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet)', :'abs_srcdir' || '/nonexistent.parquet'));
CREATE VIEW v AS SELECT * FROM t;
SELECT cf_try(format('COPY v FROM %L (FORMAT parquet)', :'rg'));
-- a value the column cannot hold: the converter's error, where it is
CREATE TABLE small (id int, f numeric(3,1));
SELECT cf_try(format('COPY small FROM %L (FORMAT parquet)', :'rg'));
SELECT count(*) FROM small;
-- generated columns are filled, never read
CREATE TABLE gen (id int, twice int GENERATED ALWAYS AS (id * 2) STORED);
COPY gen FROM :'rg' (FORMAT parquet);
SELECT count(*), sum(twice) = 2 * sum(id) AS generated FROM gen;
SELECT cf_try(format('COPY gen (id, twice) FROM %L (FORMAT parquet)', :'rg'));

-- ===== hostile files: the reader's errors, and the server lives on
CREATE TABLE bad (nation_key int, name bytea);
SELECT cf_try(format('COPY bad FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet'));
CREATE TABLE bad2 ("Handle" int);
SELECT cf_try(format('COPY bad2 FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/PARQUET-1481.parquet'));
CREATE TABLE bad3 (x int[]);
SELECT cf_try(format('COPY bad3 FROM %L (FORMAT parquet)', :'corpus' || '/bad_data/ARROW-GH-45185.parquet'));
SELECT cf_try(format('COPY t FROM %L (FORMAT parquet)', :'corpus' || '/data/alltypes_plain.parquet.expected.csv'));
SELECT count(*) FROM bad;
-- the function that feeds COPY cannot be called by itself
SELECT cf_try('SELECT parquet_fdw_copy_rows(NULL::t)');

-- ===== a few corpus files against their foreign tables, nested types too
\set f :corpus '/data/alltypes_plain.parquet'
CREATE TABLE alltypes (id int, bool_col bool, tinyint_col int, smallint_col int,
  int_col int, bigint_col bigint, float_col float4, double_col float8,
  date_string_col bytea, string_col bytea, timestamp_col timestamp);
CREATE FOREIGN TABLE alltypes_ft (id int, bool_col bool, tinyint_col int,
  smallint_col int, int_col int, bigint_col bigint, float_col float4,
  double_col float8, date_string_col bytea, string_col bytea,
  timestamp_col timestamp) SERVER cf_srv OPTIONS (filename :'f');
COPY alltypes FROM :'f' (FORMAT parquet);
SELECT count(*) AS rows,
       (SELECT count(*) FROM (SELECT * FROM alltypes EXCEPT ALL SELECT * FROM alltypes_ft) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM alltypes_ft EXCEPT ALL SELECT * FROM alltypes) x) AS missing
  FROM alltypes;
\set f :corpus '/data/nested_lists.snappy.parquet'
CREATE TABLE lists (a jsonb, b int);
CREATE FOREIGN TABLE lists_ft (a jsonb, b int) SERVER cf_srv OPTIONS (filename :'f');
COPY lists FROM :'f' (FORMAT parquet);
SELECT count(*) AS rows,
       (SELECT count(*) FROM (SELECT * FROM lists EXCEPT ALL SELECT * FROM lists_ft) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM lists_ft EXCEPT ALL SELECT * FROM lists) x) AS missing
  FROM lists;

DROP VIEW v;
DROP TABLE t, t2, t3, t4, sales_heap, sales_part, trig, trig_log, nn, t_stdin,
  small, gen, bad, bad2, bad3, alltypes, lists;
DROP FUNCTION trig_touch(), trig_count(), cf_try(text);
DROP ROLE cf_user;
DROP SERVER cf_srv CASCADE;
