--
-- insert: INSERT into parquet_fdw foreign tables.  Each statement adds new
-- files (never rewrites one) in the table's folder, hive tables get each
-- row in its key=value folder, aborted (sub)transactions leave no file.
-- What a table reads back is compared with a heap table given the same
-- rows (EXCEPT ALL both ways).
--
-- The folders are made in the data directory with \! (the server writes
-- into them); test/data/pruning/partitions/sales (make_partitions.mjs)
-- seeds the hive table with a year=2022/region=eu file of 100 rows.
--
\getenv abs_srcdir PG_ABS_SRCDIR
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_insert' AS dir,
       current_setting('data_directory') || '/pf_insert/flat' AS flat,
       current_setting('data_directory') || '/pf_insert/hive' AS hive,
       current_setting('data_directory') || '/pf_insert/one' AS one,
       current_setting('data_directory') || '/pf_insert/part' AS part
\gset
\set one_file :one '/seed.parquet'
\set two :flat ',' :one
\set pattern :flat '/*.parquet'
\setenv PF_INSERT_DIR :dir
\setenv PF_SEED :abs_srcdir/test/data/pruning/partitions/sales/year=2022/region=eu/data_0.parquet
\! rm -rf "$PF_INSERT_DIR" && mkdir -p "$PF_INSERT_DIR/flat" "$PF_INSERT_DIR/hive/year=2022/region=eu" "$PF_INSERT_DIR/one" "$PF_INSERT_DIR/part" && cp "$PF_SEED" "$PF_INSERT_DIR/hive/year=2022/region=eu/" && cp "$PF_SEED" "$PF_INSERT_DIR/one/seed.parquet" && chmod -R a+rwX "$PF_INSERT_DIR"

-- the files of a folder (below it, any depth), names with the time and pid
-- made uniform
CREATE FUNCTION ins_files(folder text) RETURNS SETOF text LANGUAGE sql AS $$
  WITH RECURSIVE walk(path, rel) AS (
    SELECT folder || '/' || f, f FROM pg_ls_dir(folder) f
    UNION ALL
    SELECT w.path || '/' || f, w.rel || '/' || f
      FROM walk w, pg_ls_dir(w.path) f
     WHERE (pg_stat_file(w.path)).isdir
  )
  SELECT regexp_replace(rel, '-[0-9]{8}T[0-9]{12}-[0-9]+-[0-9]+\.parquet$', '-<time>-<pid>-<n>.parquet')
    FROM walk WHERE NOT (pg_stat_file(path)).isdir ORDER BY 1
$$;

CREATE SERVER ins_srv FOREIGN DATA WRAPPER parquet_fdw;

-- ===== a folder table: every mapped type, NULLs in every column
CREATE TYPE ins_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE ins_src AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 1 THEN NULL ELSE i::int8 * 1000000007 END AS i8,
       CASE WHEN i % 7 = 2 THEN NULL ELSE i / 3.0::float8 END AS f8,
       CASE WHEN i % 7 = 3 THEN NULL ELSE (i * 1.25 - 300)::numeric(9,2) END AS n,
       CASE WHEN i % 7 = 4 THEN NULL ELSE 'text ' || i || repeat('é', i % 5) END AS t,
       CASE WHEN i % 7 = 5 THEN NULL ELSE date '2024-01-01' + i END AS d,
       CASE WHEN i % 7 = 6 THEN NULL ELSE timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute 1.5 second' END AS tz,
       CASE WHEN i % 5 = 0 THEN NULL ELSE (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::ins_mood END AS mood,
       CASE WHEN i % 6 = 0 THEN NULL ELSE ARRAY[i, NULL, i + 1] END AS arr,
       CASE WHEN i % 4 = 0 THEN NULL ELSE decode(lpad(to_hex(i), 8, '0'), 'hex') END AS by
  FROM generate_series(1, 3000) i;
CREATE FOREIGN TABLE ins_flat (id int, b bool, i8 bigint, f8 float8, n numeric(9,2),
  t text, d date, tz timestamptz, mood ins_mood, arr int[], by bytea)
  SERVER ins_srv OPTIONS (filename :'flat', allow_empty 'true');  -- starts empty
SELECT count(*) FROM ins_flat;
INSERT INTO ins_flat SELECT * FROM ins_src WHERE id <= 1000;
-- a second statement: a second file
INSERT INTO ins_flat SELECT * FROM ins_src WHERE id > 1000;
SELECT ins_files(:'flat');
SELECT count(*), sum(id) FROM ins_flat;
SELECT count(*) AS missing FROM (SELECT * FROM ins_src EXCEPT ALL SELECT * FROM ins_flat) x;
SELECT count(*) AS extra FROM (SELECT * FROM ins_flat EXCEPT ALL SELECT * FROM ins_src) x;
-- VALUES, defaults of a column not given (NULL), RETURNING
INSERT INTO ins_flat (id, t) VALUES (5001, 'five'), (5002, NULL) RETURNING id, t, b;
SELECT id, t, b FROM ins_flat WHERE id > 5000 ORDER BY id;

-- ===== batches (batch_size as postgres_fdw's): the same rows either way
ALTER FOREIGN TABLE ins_flat OPTIONS (ADD batch_size '100');
INSERT INTO ins_flat SELECT id + 10000, b, i8, f8, n, t, d, tz, mood, arr, by FROM ins_src;
SELECT count(*) AS missing FROM
  (SELECT id + 10000, b, i8, f8, n, t, d, tz, mood, arr, by FROM ins_src
   EXCEPT ALL SELECT * FROM ins_flat WHERE id > 10000) x;
SELECT count(*) FROM ins_flat WHERE id > 10000;
ALTER FOREIGN TABLE ins_flat OPTIONS (SET batch_size '0');
ALTER FOREIGN TABLE ins_flat OPTIONS (SET batch_size 'many');
ALTER SERVER ins_srv OPTIONS (ADD batch_size '50');
ALTER SERVER ins_srv OPTIONS (DROP batch_size);

-- ===== aborts leave no file behind
BEGIN;
INSERT INTO ins_flat (id) SELECT generate_series(20001, 20100);
SELECT count(*) FROM ins_flat WHERE id > 20000;
ROLLBACK;
SELECT count(*) FROM ins_flat WHERE id > 20000;
-- a savepoint rolled back takes its files, the rest commits
BEGIN;
INSERT INTO ins_flat (id) VALUES (30001);
SAVEPOINT a;
INSERT INTO ins_flat (id) VALUES (30002);
SAVEPOINT b;
INSERT INTO ins_flat (id) VALUES (30003);
RELEASE SAVEPOINT b;
ROLLBACK TO SAVEPOINT a;
INSERT INTO ins_flat (id) VALUES (30004);
COMMIT;
SELECT id FROM ins_flat WHERE id > 30000 ORDER BY id;
-- an error in the middle of a statement: no file, not even a temporary one
SELECT count(*) AS files_before FROM ins_files(:'flat') \gset
INSERT INTO ins_flat (id) SELECT 100 / (i - 500) FROM generate_series(1, 1000) i;
SELECT count(*) - :files_before AS new_files FROM ins_files(:'flat');
-- PREPARE TRANSACTION would keep files nobody removes on ROLLBACK PREPARED
BEGIN;
INSERT INTO ins_flat (id) VALUES (40001);
PREPARE TRANSACTION 'ins';
SELECT count(*) FROM ins_flat WHERE id > 40000;
SELECT count(*) - :files_before AS new_files FROM ins_files(:'flat');

-- ===== a hive-partitioned folder: each row in its key=value folder, the
-- keys not in the files; odd values escaped, NULL as the default partition
CREATE FOREIGN TABLE ins_hive (id int, amount int, year int, region text)
  SERVER ins_srv OPTIONS (filename :'hive');
CREATE TABLE ins_hive_heap AS SELECT * FROM ins_hive;
SELECT count(*) FROM ins_hive_heap;
CREATE TABLE ins_hive_new (id int, amount int, year int, region text);
INSERT INTO ins_hive_new VALUES (1001, 1, 2022, 'eu'), (1002, 2, 2023, 'us'),
  (1003, 3, 2023, 'us'), (1004, 4, NULL, 'eu'), (1005, 5, 2024, 'a/b c=d%'),
  (1006, 6, 2024, NULL), (1007, NULL, 2025, '');
INSERT INTO ins_hive SELECT * FROM ins_hive_new;
INSERT INTO ins_hive_heap SELECT * FROM ins_hive_new;
SELECT ins_files(:'hive');
SELECT count(*) AS missing FROM (SELECT * FROM ins_hive_heap EXCEPT ALL SELECT * FROM ins_hive) x;
SELECT count(*) AS extra FROM (SELECT * FROM ins_hive EXCEPT ALL SELECT * FROM ins_hive_heap) x;
SELECT * FROM ins_hive WHERE id > 1000 ORDER BY id;
-- the written files hold id and amount only
SELECT DISTINCT path FROM parquet_schema(:'hive' || '/year=2023/region=us/' ||
  (SELECT f FROM pg_ls_dir(:'hive' || '/year=2023/region=us') f)) WHERE path <> '' ORDER BY 1;

-- ===== a table over one file: new files go next to it (the table reads
-- its one file only)
CREATE FOREIGN TABLE ins_one (id int, amount int)
  SERVER ins_srv OPTIONS (filename :'one_file');
INSERT INTO ins_one VALUES (1, 2);
SELECT count(*) FROM ins_one;
SELECT ins_files(:'one');

-- ===== a foreign partition of a partitioned table gets its rows routed
CREATE TABLE ins_routed (id int, amount int) PARTITION BY RANGE (id);
CREATE TABLE ins_routed_low PARTITION OF ins_routed FOR VALUES FROM (0) TO (100);
CREATE FOREIGN TABLE ins_routed_high PARTITION OF ins_routed FOR VALUES FROM (100) TO (MAXVALUE)
  SERVER ins_srv OPTIONS (filename :'part');
INSERT INTO ins_routed VALUES (5, 1), (500, 2), (501, 3);
SELECT tableoid::regclass, * FROM ins_routed ORDER BY id;
-- and COPY (text) into the foreign table goes the same way
COPY ins_routed_high FROM STDIN;
600	4
\.
SELECT * FROM ins_routed_high ORDER BY id;
SELECT ins_files(:'part');

-- ===== refused
UPDATE ins_flat SET id = 1;
DELETE FROM ins_flat;
INSERT INTO ins_flat (id) VALUES (1) ON CONFLICT DO NOTHING;
CREATE FOREIGN TABLE ins_two (id int) SERVER ins_srv
  OPTIONS (filename :'two');
INSERT INTO ins_two VALUES (1);
CREATE FOREIGN TABLE ins_pattern (id int) SERVER ins_srv
  OPTIONS (filename :'pattern');
INSERT INTO ins_pattern VALUES (1);
\set shard :abs_srcdir '/test/data/amudai/nested.amudai.shard'
CREATE FOREIGN TABLE ins_shard (id int) SERVER ins_srv OPTIONS (filename :'shard');
INSERT INTO ins_shard VALUES (1);
-- a role needs pg_write_server_files
CREATE ROLE ins_user;
GRANT SELECT, INSERT ON ins_flat TO ins_user;
SET ROLE ins_user;
INSERT INTO ins_flat (id) VALUES (50001);
RESET ROLE;
GRANT pg_write_server_files TO ins_user;
SET ROLE ins_user;
INSERT INTO ins_flat (id) VALUES (50001);
SELECT id FROM ins_flat WHERE id > 50000;
RESET ROLE;
-- EXPLAIN does not write
EXPLAIN (COSTS OFF) INSERT INTO ins_flat (id) VALUES (60001);
SELECT count(*) FROM ins_flat WHERE id > 60000;

DROP TABLE ins_src, ins_hive_heap, ins_hive_new, ins_routed;
DROP TYPE ins_mood CASCADE;
DROP SERVER ins_srv CASCADE;
DROP FUNCTION ins_files(text);
REVOKE pg_write_server_files FROM ins_user;
DROP ROLE ins_user;
\! rm -rf "$PF_INSERT_DIR"
