--
-- options: the validator (names, values, hints), column matching,
-- missing_columns, column_name, lists of files, and the privilege to name
-- server files.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/data'
\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';

-- errors with paths reduced to file names, plus detail, hint and context
CREATE FUNCTION pf_try(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text; det text; hnt text; ctx text;
BEGIN
  EXECUTE query;
  RETURN NEXT 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hnt = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT SQLSTATE || ': ' || regexp_replace(msg, '/[^"]*/', '', 'g');
  IF det <> '' THEN RETURN NEXT 'DETAIL: ' || regexp_replace(det, '/[^"]*/', '', 'g'); END IF;
  IF hnt <> '' THEN RETURN NEXT 'HINT: ' || hnt; END IF;
  IF ctx <> '' THEN
    RETURN QUERY SELECT 'CONTEXT: ' || regexp_replace(l, '/[^"]*/', '', 'g')
      FROM regexp_split_to_table(ctx, E'\n') l WHERE l NOT LIKE 'PL/pgSQL%';
  END IF;
END $$;

CREATE SERVER opt_srv FOREIGN DATA WRAPPER parquet_fdw;

-- ===== validator
-- options of the server and user mapping: object-store settings only
CREATE SERVER opt_bad FOREIGN DATA WRAPPER parquet_fdw OPTIONS (filename '/x');  -- ERROR
CREATE USER MAPPING FOR CURRENT_USER SERVER opt_srv OPTIONS (user 'x');  -- ERROR
-- a misspelt option gets the closest valid one
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filenme '/x');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '/x', missing_column 'null');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint OPTIONS (colum_name 'x')) SERVER opt_srv OPTIONS (filename '/x');  -- ERROR
-- nothing close: the valid options are listed
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (compression 'zstd');  -- ERROR
-- filename is required, values are checked, no duplicates
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv;  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '/a.parquet,,/b.parquet');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '"/a.parquet');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '/x', missing_columns 'maybe');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint OPTIONS (column_name '')) SERVER opt_srv OPTIONS (filename '/x');  -- ERROR
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename '/x', filename '/y');  -- ERROR
-- ALTER keeps checking, and filename cannot be dropped
CREATE FOREIGN TABLE opt_t (id bigint) SERVER opt_srv OPTIONS (filename :'rg');
ALTER FOREIGN TABLE opt_t OPTIONS (ADD missing_columns 'nul');  -- ERROR
ALTER FOREIGN TABLE opt_t OPTIONS (DROP filename);  -- ERROR
ALTER FOREIGN TABLE opt_t OPTIONS (ADD missing_columns 'NULL');
DROP FOREIGN TABLE opt_t;

-- ===== column matching
-- exact names, case-insensitive names, column_name, in any order
\set f :corpus '/alltypes_plain.parquet'
CREATE FOREIGN TABLE opt_match (
    "STRING_COL" text,
    ident int OPTIONS (column_name 'id'),
    "Bool_Col" boolean)
  SERVER opt_srv OPTIONS (filename :'f');
SELECT * FROM opt_match ORDER BY ident;
-- a column the file lacks: an error by default ...
CREATE FOREIGN TABLE opt_missing (id int, nope text, also_nope int OPTIONS (column_name 'nada'))
  SERVER opt_srv OPTIONS (filename :'f');
SELECT pf_try('SELECT id FROM opt_missing');
-- ... and NULL with missing_columns 'null'
ALTER FOREIGN TABLE opt_missing OPTIONS (ADD missing_columns 'null');
SELECT id, nope, also_nope FROM opt_missing ORDER BY id LIMIT 3;
SELECT count(nope), count(*) FROM opt_missing;

-- ===== lists of files: scanned in order, each with its own row groups
\set two :rg ', ' :rg
CREATE FOREIGN TABLE opt_two (id bigint, grp int) SERVER opt_srv OPTIONS (filename :'two');
SELECT count(*), sum(id), count(DISTINCT grp) FROM opt_two;
-- quoting: a quoted entry, blanks around entries
\set quoted '  "' :rg '"  ,' :rg '  '
ALTER FOREIGN TABLE opt_two OPTIONS (SET filename :'quoted');
SELECT count(*) FROM opt_two;
-- a folder stands for its *.parquet files, a pattern for its matches
\set folder :abs_srcdir '/test/data/scan'
ALTER FOREIGN TABLE opt_two OPTIONS (SET filename :'folder');
SELECT count(*), sum(id) FROM opt_two;
\set pattern :abs_srcdir '/test/data/sca?/*.parquet, ' :abs_srcdir '/test/data/scan/rowgroups.parq*'
ALTER FOREIGN TABLE opt_two OPTIONS (SET filename :'pattern');
SELECT count(*), sum(id) FROM opt_two;
\set pattern :abs_srcdir '/test/data/scan/*.nothing'
ALTER FOREIGN TABLE opt_two OPTIONS (SET filename :'pattern', ADD allow_empty 'true');
SELECT count(*), sum(id) FROM opt_two;
ALTER FOREIGN TABLE opt_two OPTIONS (DROP allow_empty);
-- a missing file in a list fails, naming it
\set bad :rg ', /nonexistent/folder/missing.parquet'
ALTER FOREIGN TABLE opt_two OPTIONS (SET filename :'bad');
SELECT pf_try('SELECT count(*) FROM opt_two');

-- ===== privileges: only superusers and pg_read_server_files set filename
CREATE ROLE parquet_opt_user;
GRANT USAGE ON FOREIGN SERVER opt_srv TO parquet_opt_user;
GRANT ALL ON SCHEMA public TO parquet_opt_user;
SET ROLE parquet_opt_user;
CREATE FOREIGN TABLE opt_priv (id bigint) SERVER opt_srv OPTIONS (filename :'rg');  -- ERROR
SELECT pf_try(format('SELECT parquet_create_foreign_table(%L, %L, %L)', 'opt_priv', 'opt_srv', :'rg'));
RESET ROLE;
-- a table made by a superuser can be read when granted, not altered
CREATE FOREIGN TABLE opt_priv (id bigint) SERVER opt_srv OPTIONS (filename :'rg');
GRANT SELECT ON opt_priv TO parquet_opt_user;
ALTER FOREIGN TABLE opt_priv OWNER TO parquet_opt_user;
SET ROLE parquet_opt_user;
SELECT count(*) FROM opt_priv;
ALTER FOREIGN TABLE opt_priv OPTIONS (SET filename '/etc/passwd');  -- ERROR
RESET ROLE;
GRANT pg_read_server_files TO parquet_opt_user;
SET ROLE parquet_opt_user;
ALTER FOREIGN TABLE opt_priv OPTIONS (ADD missing_columns 'null');
CREATE FOREIGN TABLE opt_priv2 (id bigint) SERVER opt_srv OPTIONS (filename :'rg');
SELECT count(*) FROM opt_priv2;
DROP FOREIGN TABLE opt_priv, opt_priv2;
RESET ROLE;
REVOKE ALL ON SCHEMA public FROM parquet_opt_user;
DROP OWNED BY parquet_opt_user;
DROP ROLE parquet_opt_user;

-- ===== the simd GUC
SET parquet_fdw.simd = 'scalar';
SELECT simd FROM parquet_fdw_version();
SELECT count(*), sum(ident) FROM opt_match;
SET parquet_fdw.simd = 'sse9';  -- ERROR
RESET parquet_fdw.simd;

-- ===== verify_checksums: page CRCs checked when asked (corpus files whose
-- four pages carry CRC32s; in the corrupt one, a page's bytes were changed
-- after its CRC was computed, so it reads with other values unchecked)
\set f :corpus '/datapage_v1-corrupt-checksum.parquet'
CREATE FOREIGN TABLE opt_crc_bad (a int, b int) SERVER opt_srv OPTIONS (filename :'f');
\set f :corpus '/datapage_v1-uncompressed-checksum.parquet'
CREATE FOREIGN TABLE opt_crc_good (a int, b int)
  SERVER opt_srv OPTIONS (filename :'f', verify_checksums 'true');
SELECT count(*), sum(a::bigint) AS sum_a, sum(b::bigint) AS sum_b FROM opt_crc_good;
SELECT count(*), sum(a::bigint) AS sum_a, sum(b::bigint) AS sum_b FROM opt_crc_bad;
ALTER FOREIGN TABLE opt_crc_bad OPTIONS (ADD verify_checksums 'on');
SELECT pf_try('SELECT count(*), sum(a::bigint) FROM opt_crc_bad');
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT pf_try('SELECT a FROM opt_crc_bad LIMIT 1');  -- also without pushdown
RESET parquet_fdw.enable_aggregate_pushdown;
ALTER FOREIGN TABLE opt_crc_bad OPTIONS (SET verify_checksums 'maybe');  -- ERROR

DROP SERVER opt_srv CASCADE;
DROP FUNCTION pf_try(text);
