--
-- import_literal: paths IMPORT FOREIGN SCHEMA and parquet_create_foreign_table
-- write into the filename option are escaped (\* \? \[ \, \\), so a folder
-- literally named "a*" or "x[1]" reads only itself, never its siblings
-- "abc" or "x1" that the same text read as a pattern would match.
--
-- Needs the pattern reader's backslash escapes (pf_escape_path, the paths
-- branch): not in sql/schedule until both are merged.
--
-- Folders made below the data directory by the server (COPY TO PROGRAM):
--   pf_literal/a*/flat.parquet, pf_literal/x[1]/flat.parquet,
--   pf_literal/"f,1.parquet": test/data/import/tree/flat.parquet
--     (i = 1..5: id = i, name = 'n' || i)
--   pf_literal/abc/part-2.parquet, pf_literal/x1/part-2.parquet:
--     test/data/import/drift/part-2.parquet (i = 251..300: id = i, extra = 'y' || i)
-- Scans are compared row by row with heap tables built from the formulas.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set flat :abs_srcdir '/test/data/import/tree/flat.parquet'
\set other :abs_srcdir '/test/data/import/drift/part-2.parquet'
SELECT current_setting('data_directory') || '/pf_literal' AS lit \gset
\set lit_a :lit '/a*'
\set lit_x :lit '/x*'

CREATE SERVER lit_srv FOREIGN DATA WRAPPER parquet_fdw;

SELECT set_config('pf.lit', :'lit', false) IS NOT NULL AS lit,
       set_config('pf.flat', :'flat', false) IS NOT NULL AS flat,
       set_config('pf.other', :'other', false) IS NOT NULL AS other;
DO $$
DECLARE
  lit text := current_setting('pf.lit');
  flat text := current_setting('pf.flat');
  other text := current_setting('pf.other');
BEGIN
  EXECUTE format('COPY (SELECT 1 WHERE false) TO PROGRAM %L', format(
    $c$rm -rf '%1$s' && mkdir -p '%1$s/a*' '%1$s/abc' '%1$s/x[1]' '%1$s/x1' && $c$ ||
    $c$cp '%2$s' '%1$s/a*/' && cp '%2$s' '%1$s/x[1]/' && cp '%2$s' '%1$s/f,1.parquet' && $c$ ||
    $c$cp '%3$s' '%1$s/abc/' && cp '%3$s' '%1$s/x1/'$c$, lit, flat, other));
END $$;

-- rows of query q missing from query expected and the reverse (0, 0: same)
CREATE FUNCTION lit_same(q text, expected text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
  extra bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM ((' || expected || ') EXCEPT ALL (' || q || ')) d' INTO missing;
  EXECUTE 'SELECT count(*) FROM ((' || q || ') EXCEPT ALL (' || expected || ')) d' INTO extra;
  RETURN missing || ' missing, ' || extra || ' extra';
END $$;

CREATE TABLE flat_heap AS
SELECT i::bigint AS id, 'n' || i AS name FROM generate_series(1, 5) i;
CREATE TABLE other_heap AS
SELECT i::bigint AS id, 'y' || i AS extra FROM generate_series(251, 300) i;

-- ===== IMPORT: one table per folder and file, each reading only itself
CREATE SCHEMA lit_imp;
IMPORT FOREIGN SCHEMA :"lit" FROM SERVER lit_srv INTO lit_imp;
SELECT c.relname, replace(array_to_string(ft.ftoptions, ' '), :'lit', '...') AS options
  FROM pg_foreign_table ft JOIN pg_class c ON c.oid = ft.ftrelid
 WHERE c.relnamespace = 'lit_imp'::regnamespace ORDER BY c.relname;
SELECT lit_same('SELECT * FROM lit_imp."a*"', 'SELECT * FROM flat_heap');
SELECT lit_same('SELECT * FROM lit_imp."x[1]"', 'SELECT * FROM flat_heap');
SELECT lit_same('SELECT * FROM lit_imp."f,1"', 'SELECT * FROM flat_heap');
SELECT lit_same('SELECT * FROM lit_imp.abc', 'SELECT * FROM other_heap');
SELECT lit_same('SELECT * FROM lit_imp.x1', 'SELECT * FROM other_heap');

-- ===== parquet_create_foreign_table: an existing folder is literal ...
SELECT parquet_create_foreign_table('lit_a', 'lit_srv', :'lit_a');
SELECT replace(array_to_string(ftoptions, ' '), :'lit', '...') FROM pg_foreign_table
 WHERE ftrelid = 'lit_a'::regclass;
SELECT lit_same('SELECT * FROM lit_a', 'SELECT * FROM flat_heap');
-- ... a path naming nothing is a pattern: x* matches x[1] and x1
SELECT parquet_create_foreign_table('lit_x', 'lit_srv', :'lit_x');
SELECT lit_same('SELECT id, name, extra FROM lit_x',
                'SELECT id, name, NULL AS extra FROM flat_heap UNION ALL SELECT id, NULL, extra FROM other_heap');

DROP SCHEMA lit_imp CASCADE;
DROP SERVER lit_srv CASCADE;
DROP TABLE flat_heap, other_heap;
DROP FUNCTION lit_same(text, text);
