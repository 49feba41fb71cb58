--
-- paths: what the filename option and the inspection functions may name.
-- A FIFO (or any other non-regular file) is an error, never a wait in
-- open(2); backslash escapes make '*', '?', '[', ',' and '\' literal, so a
-- folder really named "a*" or "x[1]" is read alone; a pattern or folder
-- without files is an error, not 0 rows; EXPLAIN counts files.
--
-- Files: test/data/scan/rowgroups.parquet (20480 rows, id = 1..20480, sum
-- 209725440) and examples/sample.parquet (1000 rows, id = 1..1000, sum
-- 500500), copied into folders of the test's own under the data directory:
--   a*/f.parquet = sample      abc/f.parquet = rowgroups
--   x[1]/f.parquet = sample    x1/f.parquet = rowgroups
--   c,d.parquet = sample       b\s/f.parquet = sample
--   empty/ (no file)           fifo.parquet, fifo.amudai.shard: FIFOs
--   zero.amudai.shard: 0 bytes, cut.amudai.shard: a shard's first 100 bytes
--   stripe/s.amudai.shard: test/data/amudai/nested.amudai.shard, whose
--   stripe file f00d.amudai.stripe beside it is a FIFO
-- Before the fix opening a FIFO blocked the backend beyond the reach of
-- statement_timeout; background writers (one per FIFO, killed after 60 s)
-- then free it, so that a regression fails instead of hanging the suite.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
\set sample :abs_srcdir '/examples/sample.parquet'
\set shard :abs_srcdir '/test/data/amudai/nested.amudai.shard'
SELECT current_setting('data_directory') || '/pf_paths' AS root \gset
\set setup 'rm -rf ' :root ' && mkdir -p ' :root ' && cd ' :root ' && mkdir "a*" abc "x[1]" x1 empty "b\\s" && cp ' :sample ' "a*/f.parquet" && cp ' :rg ' abc/f.parquet && cp ' :sample ' "x[1]/f.parquet" && cp ' :rg ' x1/f.parquet && cp ' :sample ' "c,d.parquet" && cp ' :sample ' "b\\s/f.parquet" && mkfifo fifo.parquet fifo.amudai.shard && : > zero.amudai.shard && head -c 100 ' :shard ' > cut.amudai.shard && mkdir stripe && cp ' :shard ' stripe/s.amudai.shard && mkfifo stripe/f00d.amudai.stripe'
\set valve 'cd ' :root ' && for f in fifo.parquet fifo.amudai.shard stripe/f00d.amudai.stripe; do (timeout 60 sh -c ''while [ -p "$0" ]; do : > "$0"; done'' "$f" >/dev/null 2>&1 &); done'
\set cleanup 'rm -rf ' :root
COPY (SELECT 1 WHERE false) TO PROGRAM :'setup';
COPY (SELECT 1 WHERE false) TO PROGRAM :'valve';
SET statement_timeout = '5s';

-- errors with the test's folder masked
CREATE FUNCTION paths_try(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN sqlstate || ': ' || replace(sqlerrm, current_setting('data_directory'), '<data>');
END $$;

CREATE SERVER paths_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE paths_t (id bigint) SERVER paths_srv OPTIONS (filename '/x');

-- a table's filename option set to value ('@' standing for the test's
-- folder), then the count and sum of its rows
CREATE FUNCTION paths_read(value text, OUT n bigint, OUT total numeric)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE paths_t OPTIONS (SET filename %L)',
                 replace(value, '@', current_setting('data_directory') || '/pf_paths'));
  SELECT count(*), sum(id) INTO n, total FROM paths_t;
END $$;
CREATE FUNCTION paths_try_read(value text) RETURNS text LANGUAGE sql AS $$
  SELECT paths_try(format('SELECT paths_read(%L)', value))
$$;

-- ===== FIFOs: an error naming what the path is, at once
SELECT paths_try_read('@/fifo.parquet');
SELECT paths_try_read('@/fifo.amudai.shard');
SELECT paths_try_read('@/fifo.p*');
SELECT paths_try_read('@/stripe/s.amudai.shard');
SELECT paths_try(format('SELECT * FROM parquet_schema(%L)', :'root' || '/fifo.parquet'));
SELECT paths_try(format('SELECT * FROM parquet_metadata(%L)', :'root' || '/fifo.parquet'));
SELECT paths_try(format('SELECT * FROM parquet_file_metadata(%L)', :'root' || '/fifo.parquet'));
SELECT paths_try(format('SELECT * FROM parquet_kv_metadata(%L)', :'root' || '/fifo.parquet'));
SELECT paths_try(format('SELECT * FROM parquet_schema(%L)', :'root'));
SELECT paths_try(format('SELECT parquet_create_foreign_table(%L, %L, %L)',
                        'paths_ct', 'paths_srv', :'root' || '/fifo.parquet'));
-- a folder holding a FIFO: the FIFO is no *.parquet file to read, skipped
SELECT * FROM paths_read('@/');

-- ===== escapes: literal folders next to what their names match as patterns
SELECT * FROM paths_read('@/a\*');        -- the folder "a*" alone: sample
SELECT * FROM paths_read('@/a*');         -- "a*" and "abc": both files
SELECT * FROM paths_read('@/x\[1\]');     -- the folder "x[1]": sample
SELECT * FROM paths_read('@/x\[1]');      -- the same ('[' escaped is enough)
SELECT * FROM paths_read('@/x[1]');       -- a pattern: "x1" only
SELECT * FROM paths_read('@/?1');         -- a pattern: "x1"
SELECT * FROM paths_read('@/c\,d.parquet');   -- one entry, not two
SELECT * FROM paths_read('"@/c,d.parquet"');  -- quoting still works
SELECT * FROM paths_read('@/b\\s');       -- a backslash in a folder name
SELECT * FROM paths_read('@/b\\s/*.parquet');
SELECT * FROM paths_read('@/[ab]\*/f.parquet');   -- escapes inside patterns
SELECT * FROM paths_read('@/**/a\*/*.parquet');   -- and inside "**" patterns
SELECT paths_try_read('@/a\*\*');          -- literal: no folder "a**"

-- ===== no silent empties
SELECT paths_try_read('@/empty');
SELECT paths_try_read('@/*.nothing');
SELECT paths_try_read('@/**/*.nothing');
SELECT paths_try_read('@/empty, @/a\*');     -- each entry must yield files
ALTER FOREIGN TABLE paths_t OPTIONS (ADD allow_empty 'true');
SELECT * FROM paths_read('@/empty');
SELECT * FROM paths_read('@/*.nothing');
SELECT * FROM paths_read('@/empty, @/a\*');
ALTER FOREIGN TABLE paths_t OPTIONS (SET allow_empty 'false');
SELECT paths_try_read('@/empty');
ALTER FOREIGN TABLE paths_t OPTIONS (SET allow_empty 'maybe');  -- ERROR
ALTER FOREIGN TABLE paths_t OPTIONS (DROP allow_empty);
-- ANALYZE expands the files itself: the same error
\set empty :root '/empty'
ALTER FOREIGN TABLE paths_t OPTIONS (SET filename :'empty');
SELECT paths_try('ANALYZE paths_t');

-- ===== URLs: read from object stores (test/remote/fdw_run.sh reads them);
-- here only what is refused before any request leaves the server: schemes
-- nobody reads, malformed URLs, link-local (metadata service) addresses
CREATE FUNCTION paths_try_url(url text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE paths_t OPTIONS (SET filename %L)', url);
  RETURN paths_try('SELECT count(*) FROM paths_t');
END $$;
SELECT paths_try_url('xyz+v2://anything');
SELECT paths_try_url('s3:///x.parquet');
SELECT paths_try_url('http://169.254.169.254/latest/x.parquet');
SELECT paths_try('SELECT * FROM parquet_schema(''http://[fe80::1]/x.parquet'')');
SELECT paths_try('SELECT * FROM parquet_metadata(''gs:///x.parquet'')');
-- the writers write s3://, gs:// and az:// (test/remote); http(s) is read
-- only: refused before any request or file
SELECT paths_try('COPY (SELECT 1 AS a) TO ''https://example.com/out.parquet'' (FORMAT parquet)');
SELECT paths_try('SELECT parquet_fdw_write_amudai(''SELECT 1 AS a'', ''https://example.com/out.amudai.shard'')');

-- ===== EXPLAIN: a count and the first file; the list only under VERBOSE
-- (PostgreSQL 18's JSON plans add "Disabled": false to every node; dropped)
CREATE FUNCTION paths_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    RETURN NEXT regexp_replace(replace(ln, current_setting('data_directory'), '<data>'),
                               E'\n *"Disabled": (true|false),', '', 'g');
  END LOOP;
END $$;
ALTER FOREIGN TABLE paths_t OPTIONS (SET filename :'root');
SELECT paths_explain('EXPLAIN (COSTS OFF) SELECT * FROM paths_t');
SELECT paths_explain('EXPLAIN (COSTS OFF, VERBOSE) SELECT * FROM paths_t');
SELECT paths_explain('EXPLAIN (COSTS OFF, FORMAT JSON) SELECT * FROM paths_t');
SELECT paths_explain('EXPLAIN (COSTS OFF) SELECT count(*) FROM paths_t');
\set one :root '/a\\*'
ALTER FOREIGN TABLE paths_t OPTIONS (SET filename :'one');
SELECT paths_explain('EXPLAIN (COSTS OFF) SELECT * FROM paths_t');

-- ===== shards: an empty or cut shard is an invalid shard, not Parquet
SELECT paths_try_read('@/zero.amudai.shard');
SELECT paths_try_read('@/cut.amudai.shard');

-- ===== parquet_fdw.simd: a known ISA the CPU has, or an error saying what
-- it has (the outcome is compared with the ISA "auto" picks, so the test
-- holds on CPUs with and without AVX-512)
SET parquet_fdw.simd = 'scalar';
SHOW parquet_fdw.simd;
SELECT simd FROM parquet_fdw_version();
SET parquet_fdw.simd = 'sse9';  -- ERROR
SET parquet_fdw.simd = 'auto';
SELECT simd AS best FROM parquet_fdw_version() \gset
CREATE FUNCTION paths_try_isa(isa text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE detail text;
BEGIN
  PERFORM set_config('parquet_fdw.simd', isa, true);
  RETURN 'accepted';
EXCEPTION WHEN invalid_parameter_value THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN 'refused: ' || detail;
END $$;
SELECT (paths_try_isa('avx512') = 'accepted') = (:'best' = 'avx512') AS avx512_as_cpu,
       (paths_try_isa('avx2') = 'accepted') = (:'best' IN ('avx2', 'avx512')) AS avx2_as_cpu,
       paths_try_isa('avx512') IN ('accepted',
         format('refused: This CPU does not support "avx512" instructions; the best it supports is "%s".', :'best'))
         AS avx512_detail;
RESET parquet_fdw.simd;
-- a SET before the session has loaded parquet_fdw is only a placeholder:
-- checked when the library loads (a WARNING, the value falls back to auto)
\c
SET parquet_fdw.simd = 'sse9';
SELECT simd IN ('scalar', 'avx2', 'avx512') AS simd_ok FROM parquet_fdw_version();
SHOW parquet_fdw.simd;
SET statement_timeout = '5s';

RESET statement_timeout;
DROP SERVER paths_srv CASCADE;
DROP FUNCTION paths_try(text), paths_read(text), paths_try_read(text),
  paths_try_url(text), paths_explain(text), paths_try_isa(text);
COPY (SELECT 1 WHERE false) TO PROGRAM :'cleanup';
