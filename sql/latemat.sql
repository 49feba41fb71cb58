--
-- latemat: late materialization.  With quals the scan evaluates itself
-- (latequal), the columns the first conjunct does not read are deferred:
-- the source decodes them only for the rows a later conjunct or the output
-- needs, skipping to them (whole pages unread).  Every answer here is
-- compared with the heap table the file was written from (EXCEPT ALL both
-- ways), over files with small pages and row groups so that the selected
-- rows fall on batch (4096 rows), page and row group edges; with and
-- without dictionaries, data pages v1 and v2, NULLs in every column.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT current_setting('data_directory') || '/pf_latemat_dict.parquet' AS dict_file,
       current_setting('data_directory') || '/pf_latemat_plain.parquet' AS plain_file
\gset

CREATE SERVER lm_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE lm_ref AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 30000 - 15000)::int2 END AS i2,
       CASE WHEN i % 7 = 2 THEN NULL ELSE i * 1000 - 500000 END AS i4,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::int8 * 1000000007 END AS i8,
       CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 8.0)::float4 END AS f4,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 3.0::float8 END AS f8,
       CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 1.25 - 300)::numeric(9,2) END AS n9,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i::numeric * 10^25 + 0.123)::numeric(38,3) END AS n38,
       CASE WHEN i % 7 = 1 THEN NULL ELSE 'text ' || i || repeat('é', i % 5) END AS t,
       CASE WHEN i % 3 = 0 THEN NULL ELSE 'word' || (i % 13) END AS tdict,
       CASE WHEN i % 7 = 2 THEN NULL ELSE decode(lpad(to_hex(i), 6, '0'), 'hex') END AS by,
       CASE WHEN i % 7 = 3 THEN NULL ELSE date '2000-01-01' + (i * 37 - 20000) END AS d,
       CASE WHEN i % 7 = 4 THEN NULL ELSE timestamp '1960-01-01' + i * interval '1 day 1.000001 s' END AS ts,
       CASE WHEN i % 7 = 5 THEN NULL ELSE timestamptz '2020-02-29 12:00+00' - i * interval '1 hour' END AS tstz,
       CASE WHEN i % 7 = 6 THEN NULL ELSE md5(i::text)::uuid END AS u,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ('{"k": ' || i || '}')::jsonb END AS jb,
       CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '{}'::int[]
            ELSE ARRAY[i, NULL, i + 1] END AS ai
  FROM generate_series(1, 20000) i;
ALTER TABLE lm_ref ALTER n9 TYPE numeric(9,2), ALTER n38 TYPE numeric(38,3);
COPY lm_ref TO :'dict_file' (FORMAT parquet, row_group_size 7000, page_size 1024);
COPY lm_ref TO :'plain_file' (FORMAT parquet, row_group_size 9000, page_size 2048,
                              dictionary false, data_page_version 2);

CREATE FOREIGN TABLE lm_dict (id int, b bool, i2 int2, i4 int, i8 int8, f4 float4,
  f8 float8, n9 numeric(9,2), n38 numeric(38,3), t text, tdict text, by bytea,
  d date, ts timestamp, tstz timestamptz, u uuid, jb jsonb, ai int[])
  SERVER lm_srv OPTIONS (filename :'dict_file');
CREATE FOREIGN TABLE lm_plain (id int, b bool, i2 int2, i4 int, i8 int8, f4 float4,
  f8 float8, n9 numeric(9,2), n38 numeric(38,3), t text, tdict text, by bytea,
  d date, ts timestamp, tstz timestamptz, u uuid, jb jsonb, ai int[])
  SERVER lm_srv OPTIONS (filename :'plain_file');

-- rows of the foreign table and of lm_ref under the same WHERE clause:
-- how many, and how many of each are missing from the other
CREATE FUNCTION lm_check(tab text, qual text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint; missing bigint; extra bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %I WHERE %s', tab, qual) INTO n;
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM lm_ref WHERE %s EXCEPT ALL SELECT * FROM %I WHERE %s) x',
                 qual, tab, qual) INTO missing;
  EXECUTE format('SELECT count(*) FROM (SELECT * FROM %I WHERE %s EXCEPT ALL SELECT * FROM lm_ref WHERE %s) x',
                 tab, qual, qual) INTO extra;
  RETURN format('%s rows, %s missing, %s extra', n, missing, extra);
END $$;

SELECT tab, q, lm_check(tab, q)
  FROM (VALUES ('lm_dict'), ('lm_plain')) t(tab),
       (VALUES
         -- a first conjunct on id, every other column deferred: batch,
         -- page and row group edges, the first and the last row
         ('id IN (1, 2, 4095, 4096, 4097, 6999, 7000, 7001, 8192, 8193, 9000, 9001, 12288, 14000, 19999, 20000)'),
         -- runs of rows, across a batch edge and across a row group edge
         ('id BETWEEN 4090 AND 4110'),
         ('id BETWEEN 6990 AND 7010 OR id BETWEEN 8995 AND 9005'),
         -- one row in every 97: each batch asks its deferred columns for a few
         ('id % 97 = 5'),
         -- most rows: the deferred columns are decoded for the rest of a batch
         ('id % 10 <> 3'),
         -- a second conjunct reads a deferred column, the output the others
         ('id % 3 = 1 AND t IS NULL'),
         ('id % 2 = 0 AND tdict = ''word5'''),
         ('i4 > 0 AND f8 < 500 AND tdict IS NOT NULL'),
         -- the first conjunct on a column with NULLs, on text, on a list
         ('i2 IS NULL'),
         ('t LIKE ''%99%'''),
         ('cardinality(ai) = 0 AND id > 15000'),
         -- no row at all, every row
         ('id < 0'),
         ('id > 0')) q(q)
 ORDER BY 1, 2;

-- LIMIT and OFFSET: the scan stops in the middle of a batch
SELECT id, t, tdict, d, ai FROM lm_dict WHERE id % 1000 = 7 AND t IS NOT NULL
 ORDER BY id LIMIT 3 OFFSET 2;
SELECT id, t, tdict, d, ai FROM lm_ref WHERE id % 1000 = 7 AND t IS NOT NULL
 ORDER BY id LIMIT 3 OFFSET 2;

-- the page index rules rows out while the deferred columns lag behind
SELECT lm_check('lm_dict', 'id BETWEEN 5000 AND 5010 AND t IS NOT NULL'),
       lm_check('lm_plain', 'id >= 19990 AND f8 IS NOT NULL');

-- rescans: the inner side is read again for each outer row
SELECT g, count(*), sum(l.i8), min(l.t), max(l.u::text)
  FROM generate_series(1, 3) g,
       LATERAL (SELECT * FROM lm_plain WHERE id % 4000 = g AND d IS NOT NULL) l
 GROUP BY g ORDER BY g;
SELECT g, count(*), sum(l.i8), min(l.t), max(l.u::text)
  FROM generate_series(1, 3) g,
       LATERAL (SELECT * FROM lm_ref WHERE id % 4000 = g AND d IS NOT NULL) l
 GROUP BY g ORDER BY g;

-- a qual the scan cannot take over (a subplan): the executor filters
SELECT lm_check('lm_dict', 'id NOT IN (SELECT generate_series(1, 19990))');

-- the deferred columns' pages no selected row is in are not read at all:
-- one row (id + 0: no page index pruning either) reads a small part of what
-- every row reads, what is left being the id column and, with
-- dictionaries, the dictionary pages of the row groups
CREATE FUNCTION lm_bytes_read(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Bytes Read')::bigint;
END $$;
SELECT lm_bytes_read('SELECT * FROM lm_dict WHERE id + 0 = 12288') * 2 <
       lm_bytes_read('SELECT * FROM lm_dict WHERE id > 0') AS dict_one_row_reads_little,
       lm_bytes_read('SELECT * FROM lm_plain WHERE id + 0 = 12288') * 5 <
       lm_bytes_read('SELECT * FROM lm_plain WHERE id > 0') AS plain_one_row_reads_little;
