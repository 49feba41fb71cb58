--
-- copy_to_fast: the sink's inline value paths (int4, date, int8, float8,
-- numeric(p <= 18) in 64-bit arithmetic, text and bytea stored inline,
-- compressed or external) and the writer's dictionary and page bounds,
-- over several row groups and pages.  Every file is read back and
-- compared with the heap table (EXCEPT both ways), and the statistics of
-- each row group with min/max computed from the heap rows.
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_copy_fast.parquet' AS fast_file
\gset
CREATE SERVER fast_srv FOREIGN DATA WRAPPER parquet_fdw;

-- i4, i8: high cardinality (the dictionary is given up), d: 50 distinct
-- dates (dictionary kept), f8 with zeros of both signs, n*: the edges of
-- INT32 and INT64 decimals, t: 300 distinct words plus long values
CREATE TABLE fast_src (id int, i4 int, i8 bigint, d date, f8 float8,
  n4 numeric(4,2), n9 numeric(9,3), n15 numeric(15,2), n18 numeric(18,0),
  n18s numeric(18,6), t text, b bytea);
ALTER TABLE fast_src ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO fast_src
SELECT i,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 100003 - 50000 END,
       i::int8 * 2654435761 % 1000000000007 - 500000000000,
       DATE '2000-01-01' + (i * 37) % 50,
       CASE WHEN i % 13 = 0 THEN -0.0 WHEN i % 13 = 1 THEN 0.0 ELSE (i % 1000) / 7.0 - 70 END,
       ((i % 19999) - 9999) / 100.0,
       CASE WHEN i % 3 = 0 THEN 999999.999 * (1 - 2 * (i % 2)) ELSE ((i * 31) % 2000001 - 1000000) / 1000.0 END,
       CASE WHEN i % 5 = 0 THEN 9999999999999.99 * (1 - 2 * (i % 2)) ELSE i * 1000.01 END,
       CASE WHEN i % 4 = 0 THEN 999999999999999999::numeric * (1 - 2 * ((i / 4) % 2)) ELSE i::numeric * 1000000000000 END,
       CASE WHEN i % 6 = 0 THEN NULL ELSE i::numeric / 64 END,
       CASE WHEN i % 17 = 0 THEN NULL
            WHEN i % 97 = 0 THEN repeat('long ' || i, 800)
            ELSE 'word' || (i * 13) % 300 END,
       CASE WHEN i % 9 = 0 THEN NULL ELSE decode(lpad(to_hex(i % 4096), 4, '0'), 'hex') END
  FROM generate_series(1, 30000) i;
-- a value compressed inline (pglz) and an empty one
INSERT INTO fast_src (id, t, b) VALUES (30001, repeat('ab', 5000), ''), (30002, '', '\x00');
ALTER TABLE fast_src ALTER COLUMN t SET STORAGE EXTENDED;
INSERT INTO fast_src (id, t) VALUES (30003, repeat('cd', 6000));
SELECT count(*) FILTER (WHERE pg_column_compression(t) IS NOT NULL) AS compressed FROM fast_src;

COPY fast_src TO :'fast_file' (FORMAT parquet, row_group_size 7000, page_size 8192);
CREATE FOREIGN TABLE fast_back (id int, i4 int, i8 bigint, d date, f8 float8,
  n4 numeric(4,2), n9 numeric(9,3), n15 numeric(15,2), n18 numeric(18,0),
  n18s numeric(18,6), t text, b bytea) SERVER fast_srv OPTIONS (filename :'fast_file');
SELECT count(*) AS missing FROM (SELECT * FROM fast_src EXCEPT SELECT * FROM fast_back) x;
SELECT count(*) AS extra FROM (SELECT * FROM fast_back EXCEPT SELECT * FROM fast_src) x;

-- dictionary on the low-cardinality columns only
SELECT path, bool_and(dictionary_page_offset IS NOT NULL) AS dictionary
  FROM parquet_metadata(:'fast_file') WHERE path IN ('i8', 'd', 't') GROUP BY path ORDER BY path;

-- each row group's statistics equal the min/max of its rows in the heap
-- (rows are written in id order, row_group_size rows each); a long text
-- bound is cut short (min_exact / max_exact false) and then only brackets
WITH rg AS (
  SELECT (id - 1) / 7000 AS row_group, min(i4)::text AS i4_min, max(i4)::text AS i4_max,
         min(d)::text AS d_min, max(d)::text AS d_max,
         min(f8)::text AS f8_min, max(f8)::text AS f8_max,
         min(n15)::text AS n15_min, max(n15)::text AS n15_max,
         min(n18)::text AS n18_min, max(n18)::text AS n18_max,
         min(t COLLATE "C") AS t_min, max(t COLLATE "C") AS t_max
    FROM fast_src GROUP BY 1),
 want AS (
  SELECT m.row_group, m.path, m.stats_min, m.stats_max, m.min_exact, m.max_exact,
         CASE m.path WHEN 'i4' THEN i4_min WHEN 'd' THEN d_min WHEN 'f8' THEN f8_min
                     WHEN 'n15' THEN n15_min WHEN 'n18' THEN n18_min ELSE t_min END AS lo,
         CASE m.path WHEN 'i4' THEN i4_max WHEN 'd' THEN d_max WHEN 'f8' THEN f8_max
                     WHEN 'n15' THEN n15_max WHEN 'n18' THEN n18_max ELSE t_max END AS hi
    FROM parquet_metadata(:'fast_file') m JOIN rg USING (row_group)
   WHERE m.path IN ('i4', 'd', 'f8', 'n15', 'n18', 't'))
SELECT count(*) AS bounds,
       count(*) FILTER (WHERE (stats_min = lo OR (NOT min_exact AND stats_min COLLATE "C" <= lo))
                          AND (stats_max = hi OR (NOT max_exact AND stats_max COLLATE "C" >= hi))) AS right,
       count(*) FILTER (WHERE NOT min_exact OR NOT max_exact) AS cut_short
  FROM want;

-- values the inline paths hand to the general one: errors name the column
CREATE TABLE fast_bad (d date, n numeric(4,2));
INSERT INTO fast_bad VALUES ('infinity', 1);
COPY fast_bad TO :'fast_file' (FORMAT parquet);
TRUNCATE fast_bad;
INSERT INTO fast_bad VALUES ('2020-01-01', 'NaN');
COPY fast_bad TO :'fast_file' (FORMAT parquet);

DROP TABLE fast_src, fast_bad;
DROP SERVER fast_srv CASCADE;
