--
-- copy_to: COPY ... TO ... (FORMAT parquet).  Every file written here is
-- read back through a parquet_fdw foreign table and compared with the
-- heap table or query it came from (EXCEPT both ways must be empty), and
-- its layout is checked with parquet_metadata() / parquet_schema().
--
-- The COPY hook lives in the library: a session must have loaded it
-- (shared_preload_libraries or session_preload_libraries in production).
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_copy_types.parquet' AS types_file,
       current_setting('data_directory') || '/pf_copy_opts.parquet' AS opts_file,
       current_setting('data_directory') || '/pf_copy_keep.parquet' AS keep_file,
       current_setting('data_directory') || '/pf_copy_client.parquet' AS client_file,
       current_setting('data_directory') || '/pf_copy_split' AS split_dir,
       current_setting('data_directory') || '/pf_copy_keep.amudai.shard' AS keep_shard,
       current_setting('data_directory') AS datadir
\gset

CREATE SERVER copy_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TYPE copy_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN copy_pos AS int CHECK (VALUE > 0);

-- every mapped type, NULLs in every column, lists with NULL elements,
-- empty lists and NULL lists
CREATE TABLE copy_types AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 30000 - 15000)::int2 END AS i2,
       CASE WHEN i % 7 = 2 THEN NULL ELSE i * 1000 - 500000 END AS i4,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::int8 * 1000000007 END AS i8,
       CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 8.0)::float4 END AS f4,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 3.0::float8 END AS f8,
       CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 1.25 - 300)::numeric(9,2) END AS n9,
       CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 12345.6789 - 99999)::numeric(18,4) END AS n18,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i::numeric * 10^25 + 0.123)::numeric(38,3) END AS n38,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END * i::numeric / 7)::numeric(30,9) END AS nfree,
       CASE WHEN i % 7 = 3 THEN NULL ELSE 'text ' || i || repeat('é', i % 5) END AS t,
       CASE WHEN i % 7 = 4 THEN NULL ELSE ('v' || i)::varchar(10) END AS vc,
       CASE WHEN i % 7 = 5 THEN NULL ELSE ('c' || i % 10)::char(4) END AS ch,
       CASE WHEN i % 7 = 6 THEN NULL ELSE decode(lpad(to_hex(i), 6, '0'), 'hex') END AS by,
       CASE WHEN i % 7 = 0 THEN NULL ELSE date '2000-01-01' + (i * 37 - 20000) END AS d,
       CASE WHEN i % 7 = 1 THEN NULL ELSE time '00:00' + i * interval '17.123456 s' END AS tm,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (time '00:00' + i * interval '13 s')::timetz END AS ttz,
       CASE WHEN i % 7 = 3 THEN NULL ELSE timestamp '1960-01-01' + i * interval '1 day 1.000001 s' END AS ts,
       CASE WHEN i % 7 = 4 THEN NULL ELSE timestamptz '2020-02-29 12:00+00' - i * interval '1 hour' END AS tstz,
       CASE WHEN i % 7 = 5 THEN NULL ELSE make_interval(months => i % 13, days => i % 40, secs => i * 1.5) END AS iv,
       CASE WHEN i % 7 = 6 THEN NULL ELSE md5(i::text)::uuid END AS u,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ('{"k": ' || i || ', "a": [1, "x"]}')::jsonb END AS jb,
       CASE WHEN i % 7 = 1 THEN NULL ELSE ('{"k":' || i || '}')::json END AS js,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::copy_mood END AS mood,
       CASE WHEN i % 7 = 3 THEN NULL ELSE (i % 100 + 1)::copy_pos END AS pos,
       CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '{}'::int[]
            ELSE ARRAY[i, NULL, i + 1] END AS ai,
       CASE WHEN i % 6 = 0 THEN NULL ELSE ARRAY['a' || i, NULL, ''] END AS at,
       CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY[(i / 3.0)::numeric(10,3)] END AS an,
       CASE WHEN i % 3 = 0 THEN NULL ELSE ARRAY[date '2024-01-01' + i, NULL] END AS ad
  FROM generate_series(1, 5000) i;
-- CASE drops the modifiers: give the numerics back their precision
ALTER TABLE copy_types ALTER n9 TYPE numeric(9,2), ALTER n18 TYPE numeric(18,4),
  ALTER n38 TYPE numeric(38,3), ALTER vc TYPE varchar(10), ALTER ch TYPE char(4);

COPY copy_types TO :'types_file' (FORMAT parquet, row_group_size 1000);

CREATE FOREIGN TABLE copy_types_back (
    id int, b bool, i2 int2, i4 int, i8 int8, f4 float4, f8 float8,
    n9 numeric(9,2), n18 numeric(18,4), n38 numeric(38,3), nfree numeric,
    t text, vc varchar(10), ch char(4), by bytea, d date, tm time, ttz timetz,
    ts timestamp, tstz timestamptz, iv interval, u uuid, jb jsonb, js json,
    mood text, pos int, ai int[], at text[], an numeric(10,3)[], ad date[])
  SERVER copy_srv OPTIONS (filename :'types_file');

SELECT count(*) FROM copy_types_back;
-- every value equal (json compared as text, the enum by its label)
CREATE VIEW copy_types_cmp AS
SELECT id, b, i2, i4, i8, f4, f8, n9, n18, n38, nfree, t, vc, ch, by, d, tm,
       ttz, ts, tstz, iv, u, jb, js::text AS js, mood::text AS mood, pos::int AS pos,
       ai, at, an, ad FROM copy_types;
CREATE VIEW copy_types_back_cmp AS
SELECT id, b, i2, i4, i8, f4, f8, n9, n18, n38, nfree, t, vc, ch, by, d, tm,
       ttz, ts, tstz, iv, u, jb, js::text AS js, mood, pos, ai, at, an, ad
  FROM copy_types_back;
SELECT count(*) AS missing FROM (SELECT * FROM copy_types_cmp EXCEPT SELECT * FROM copy_types_back_cmp) x;
SELECT count(*) AS extra FROM (SELECT * FROM copy_types_back_cmp EXCEPT SELECT * FROM copy_types_cmp) x;

-- the Parquet types chosen
SELECT name, repetition, physical_type, type_length, logical_type
  FROM parquet_schema(:'types_file') WHERE max_rep = 0 AND position > 0 ORDER BY position;
SELECT num_rows, num_row_groups, num_columns, created_by FROM parquet_file_metadata(:'types_file');
-- defaults: snappy, dictionary, statistics, page index, no bloom filter
SELECT DISTINCT codec, has_statistics, column_index_offset IS NOT NULL AS column_index,
       offset_index_offset IS NOT NULL AS offset_index, bloom_filter_offset IS NOT NULL AS bloom
  FROM parquet_metadata(:'types_file') WHERE path IN ('id', 't', 'd');
SELECT DISTINCT 'RLE_DICTIONARY' = ANY (encodings) AS dictionary
  FROM parquet_metadata(:'types_file') WHERE path = 'mood';

-- ===== COPY table (columns), COPY (query)
COPY copy_types (id, t) TO :'opts_file' (FORMAT parquet);
SELECT string_agg(name, ',' ORDER BY position) FROM parquet_schema(:'opts_file') WHERE position > 0;
COPY (SELECT id, t AS renamed FROM copy_types WHERE id <= 10 ORDER BY id DESC) TO :'opts_file' (FORMAT 'parquet');
CREATE FOREIGN TABLE copy_opts_back (id int, renamed text) SERVER copy_srv OPTIONS (filename :'opts_file');
SELECT * FROM copy_opts_back;
-- the format comes from the name when FORMAT is left out
COPY (SELECT 1 AS one) TO :'opts_file';
SELECT * FROM parquet_schema(:'opts_file') WHERE position = 1;

-- ===== options, each seen in the file
COPY copy_types (id, t, d) TO :'opts_file'
  (FORMAT parquet, row_group_size 700, compression zstd, compression_level 5,
   statistics false, page_index false, dictionary false, data_page_version 2,
   bloom_filter_columns 'id, t', bloom_filter_fpp 0.05, bloom_filter_ndv 1000,
   field_ids true, page_size 4096);
SELECT num_rows, num_row_groups FROM parquet_file_metadata(:'opts_file');
SELECT path, codec, has_statistics, column_index_offset IS NULL AS no_index,
       bloom_filter_offset IS NOT NULL AS bloom, 'RLE_DICTIONARY' = ANY (encodings) AS dict
  FROM parquet_metadata(:'opts_file') WHERE row_group = 0 ORDER BY column_id;
SELECT name, field_id FROM parquet_schema(:'opts_file') WHERE position > 0 ORDER BY position;
CREATE FOREIGN TABLE copy_opts3 (id int, t text, d date) SERVER copy_srv OPTIONS (filename :'opts_file');
SELECT count(*) FROM (SELECT id, t, d FROM copy_types EXCEPT SELECT * FROM copy_opts3) x;
-- the bloom filter and statistics answer point lookups
SELECT count(*), min(t) FROM copy_opts3 WHERE id = 4321;
COPY copy_types (id, t) TO :'opts_file' (FORMAT parquet, compression gzip, row_group_size_bytes 20000);
SELECT num_row_groups >= 4 AS split_by_bytes FROM parquet_file_metadata(:'opts_file');
SELECT DISTINCT codec FROM parquet_metadata(:'opts_file');
COPY copy_types (id, t) TO :'opts_file' (FORMAT parquet, compression lz4_raw);
SELECT DISTINCT codec FROM parquet_metadata(:'opts_file');
COPY copy_types (id, t) TO :'opts_file' (FORMAT parquet, compression brotli);
SELECT DISTINCT codec FROM parquet_metadata(:'opts_file');
COPY copy_types (id, t) TO :'opts_file' (FORMAT parquet, compression uncompressed);
SELECT DISTINCT codec FROM parquet_metadata(:'opts_file');
CREATE FOREIGN TABLE copy_opts2 (id int, t text) SERVER copy_srv OPTIONS (filename :'opts_file');
SELECT count(*) FROM (SELECT id, t FROM copy_types EXCEPT SELECT * FROM copy_opts2) x;

-- sorting_columns: checked row by row, then declared in every row group
COPY (SELECT id, t FROM copy_types ORDER BY t NULLS FIRST, id DESC) TO :'opts_file'
  (FORMAT parquet, sorting_columns 't nulls first, id desc', row_group_size 1000);
SELECT count(*) FROM (SELECT id, t FROM copy_types EXCEPT SELECT * FROM copy_opts2) x;
COPY (SELECT id, t FROM copy_types ORDER BY t, id) TO :'opts_file'
  (FORMAT parquet, sorting_columns 't nulls first, id');
COPY (SELECT id, t FROM copy_types ORDER BY id) TO :'opts_file'
  (FORMAT parquet, sorting_columns 'id sideways');
COPY (SELECT id, ai FROM copy_types ORDER BY id) TO :'opts_file'
  (FORMAT parquet, sorting_columns 'ai');
SELECT count(*) FROM copy_opts2;

-- file_size_bytes: numbered files in a folder, read back together
COPY copy_types (id, t, d) TO :'split_dir' (FORMAT parquet, file_size_bytes 20000, row_group_size 500);
SELECT count(*) > 1 AS several_files, bool_and(f ~ '^data_[0-9]+\.parquet$') AS named
  FROM pg_ls_dir(:'split_dir') f;
CREATE FOREIGN TABLE copy_split (id int, t text, d date) SERVER copy_srv OPTIONS (filename :'split_dir');
SELECT count(*) FROM copy_split;
SELECT count(*) FROM (SELECT id, t, d FROM copy_types EXCEPT SELECT * FROM copy_split) x;

-- a partitioned table: the rows of its partitions; an inheritance parent: its own
CREATE TABLE copy_parts (id int, t text) PARTITION BY RANGE (id);
CREATE TABLE copy_parts_1 PARTITION OF copy_parts FOR VALUES FROM (1) TO (2500);
CREATE TABLE copy_parts_2 PARTITION OF copy_parts FOR VALUES FROM (2500) TO (5001);
INSERT INTO copy_parts SELECT id, t FROM copy_types;
COPY copy_parts TO :'opts_file' (FORMAT parquet);
SELECT count(*) FROM (SELECT id, t FROM copy_types EXCEPT SELECT * FROM copy_opts2) x;
SELECT count(*) FROM copy_opts2;
CREATE TABLE copy_parent (id int, t text);
CREATE TABLE copy_child () INHERITS (copy_parent);
INSERT INTO copy_parent VALUES (1, 'parent');
INSERT INTO copy_child VALUES (2, 'child');
COPY copy_parent TO :'opts_file' (FORMAT parquet);
SELECT * FROM copy_opts2;

-- an empty result is a valid file without rows
COPY (SELECT * FROM copy_types WHERE false) TO :'opts_file' (FORMAT parquet);
SELECT num_rows, num_row_groups, num_columns FROM parquet_file_metadata(:'opts_file');

-- ===== the client side: COPY TO STDOUT, written by psql (as \copy does)
-- (over 64 kB: several CopyData messages)
COPY (SELECT id, t, ai FROM copy_types) TO STDOUT (FORMAT parquet, compression uncompressed) \g :client_file
CREATE FOREIGN TABLE copy_client (id int, t text, ai int[]) SERVER copy_srv OPTIONS (filename :'client_file');
SELECT count(*) FROM copy_client;
SELECT size > 65536 AS several_messages FROM pg_stat_file(:'client_file');
SELECT count(*) FROM (SELECT id, t, ai FROM copy_types EXCEPT SELECT * FROM copy_client) x;

-- ===== failures never lose the old file, nor leave temporary files
COPY (SELECT id FROM copy_types WHERE id <= 3) TO :'keep_file' (FORMAT parquet);
CREATE FOREIGN TABLE copy_keep (id int) SERVER copy_srv OPTIONS (filename :'keep_file');
COPY (SELECT 1 / (id - 4000) AS id FROM copy_types) TO :'keep_file' (FORMAT parquet);
SELECT * FROM copy_keep ORDER BY id;
BEGIN;
SAVEPOINT s;
COPY (SELECT 1 / (id - 4000) AS id FROM copy_types) TO :'keep_file' (FORMAT parquet);
ROLLBACK TO s;
COMMIT;
SELECT count(*) FROM copy_keep;
-- a cancel (statement_timeout) in the middle of the rows
SET statement_timeout = '300ms';
COPY (SELECT i FROM generate_series(1, 100000) i WHERE pg_sleep(0.001) IS NOT NULL) TO :'keep_file' (FORMAT parquet, row_group_size 100);
RESET statement_timeout;
SELECT count(*) FROM copy_keep;
-- the value error names the column; an unconstrained numeric is DECIMAL(38,9)
COPY (SELECT 1.0000000001 AS tiny) TO :'keep_file' (FORMAT parquet);
COPY (SELECT 1000000000000000000000000000000::numeric AS huge) TO :'keep_file' (FORMAT parquet);
COPY (SELECT 'NaN'::numeric AS nan) TO :'keep_file' (FORMAT parquet);
COPY (SELECT interval '-1 day' AS neg) TO :'keep_file' (FORMAT parquet);
COPY (SELECT 'infinity'::date AS inf) TO :'keep_file' (FORMAT parquet);
-- a LIST nests as deep as the arrays have dimensions: the same in every row
COPY (SELECT * FROM (VALUES (ARRAY[[1, 2], [3, 4]]), (ARRAY[5])) v(two_dims)) TO :'keep_file' (FORMAT parquet);
-- an array's lower bound cannot be stored: refused, and [:] renumbers it
COPY (SELECT '[5:7]={1,2,3}'::int[] AS shifted) TO :'keep_file' (FORMAT parquet);
SELECT * FROM copy_keep ORDER BY id;
SELECT * FROM copy_keep ORDER BY id;
SELECT count(*) AS temp_files FROM pg_ls_dir(:'datadir') f WHERE f LIKE '.pf_copy%';
-- parquet_fdw_write_amudai: a failing rewrite leaves the old shard readable
SELECT parquet_fdw_write_amudai('SELECT id FROM copy_types WHERE id <= 5', :'keep_shard', 1000);
SELECT parquet_fdw_write_amudai('SELECT 1 / (id - 4000) AS id FROM copy_types', :'keep_shard', 1000);
CREATE FOREIGN TABLE copy_keep_shard (id int) SERVER copy_srv OPTIONS (filename :'keep_shard');
SELECT count(*), sum(id) FROM copy_keep_shard;
SELECT count(*) AS temp_files FROM pg_ls_dir(:'datadir') f WHERE f LIKE '.pf_copy%';

-- ===== errors naming the option and its valid values
COPY copy_types TO :'opts_file' (FORMAT parquet, compression 'lzo');
COPY copy_types TO :'opts_file' (FORMAT parquet, row_group_size 0);
COPY copy_types TO :'opts_file' (FORMAT parquet, data_page_version 3);
COPY copy_types TO :'opts_file' (FORMAT parquet, dictionary 'maybe');
COPY copy_types TO :'opts_file' (FORMAT parquet, bloom_filter_fpp 1.5);
COPY copy_types TO :'opts_file' (FORMAT parquet, bloom_filter_columns 'nope');
COPY copy_types TO :'opts_file' (FORMAT parquet, compression snappy, compression_level 3);
COPY copy_types TO :'opts_file' (FORMAT parquet, header true);
COPY copy_types TO :'opts_file' (FORMAT parquet, row_group_size 10, row_group_size 20);
COPY copy_types TO 'relative.parquet' (FORMAT parquet);
COPY copy_types TO STDOUT (FORMAT parquet, file_size_bytes 100000);
COPY (SELECT 1 AS a, 2 AS a) TO :'opts_file' (FORMAT parquet);
COPY (SELECT point(1, 2) AS p) TO :'opts_file' (FORMAT parquet);
COPY (SELECT ROW(1, 2) AS r) TO :'opts_file' (FORMAT parquet);
COPY copy_types_cmp TO :'opts_file' (FORMAT parquet);
COPY copy_types TO PROGRAM 'cat' (FORMAT parquet);
-- a role without pg_write_server_files may not write server files
CREATE ROLE copy_nobody;
GRANT SELECT ON copy_types TO copy_nobody;
SET ROLE copy_nobody;
COPY copy_types TO :'opts_file' (FORMAT parquet);
RESET ROLE;
REVOKE SELECT ON copy_types FROM copy_nobody;
DROP ROLE copy_nobody;

SELECT 1 AS alive;
