--
-- variant: Parquet VARIANT columns (unshredded and shredded) read as jsonb,
-- over the parquet-testing shredded_variant corpus.  Expected values are the
-- corpus' cases.json (authoritative per its MANIFEST); the conformance
-- harness and test/conformance/check_variant_bin.py check every file, this
-- test covers the SQL side: default type, SQL NULL vs Variant null, JSON
-- types of the values, declared types, files of different shredding in one
-- table, and the SQLSTATE of invalid files.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv corpus_root PARQUET_TESTING_DIR
\set corpus :corpus_root '/shredded_variant'
SET timezone = 'UTC';

CREATE SERVER variant_srv FOREIGN DATA WRAPPER parquet_fdw;

-- the default type of a VARIANT group is jsonb
\set f :corpus '/case-083.parquet'
SELECT parquet_create_foreign_table('v_mixed', 'variant_srv', :'f') IS NULL;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'v_mixed'::regclass AND attnum > 0 ORDER BY attnum;
-- row 0: the variant group is null (SQL NULL); rows 1-3: shredded objects,
-- partly in typed_value columns, nested objects, -0.0 and 0.0 doubles
SELECT id, var, var IS NULL AS sql_null FROM v_mixed ORDER BY id;
SELECT id, var -> 'c' ->> 'b' AS c_b, jsonb_typeof(var -> 'd') AS d_type
  FROM v_mixed WHERE var ? 'c' ORDER BY id;

-- a top-level Variant null is JSON null, not SQL NULL (value 00; value and
-- typed_value both null; a null typed list next to value 00)
\set f :corpus '/case-047.parquet,' :corpus '/case-129.parquet,' :corpus '/case-135.parquet'
CREATE FOREIGN TABLE v_nulls (id int, var jsonb) SERVER variant_srv OPTIONS (filename :'f');
SELECT id, var, var IS NULL AS sql_null, jsonb_typeof(var) FROM v_nulls;

-- one file per primitive type, some shredded (typed_value), some not:
-- numbers stay numbers (decimals exact), the rest are ISO / hex / uuid text
\set f :corpus '/case-005.parquet,' :corpus '/case-013.parquet,' :corpus '/case-015.parquet,' :corpus '/case-017.parquet,' :corpus '/case-018.parquet,' :corpus '/case-021.parquet,' :corpus '/case-022.parquet,' :corpus '/case-029.parquet,' :corpus '/case-030.parquet,' :corpus '/case-032.parquet,' :corpus '/case-034.parquet,' :corpus '/case-037.parquet,' :corpus '/case-070.parquet,' :corpus '/case-075.parquet,' :corpus '/case-079.parquet'
CREATE FOREIGN TABLE v_types (id int, var jsonb) SERVER variant_srv OPTIONS (filename :'f');
SELECT var, jsonb_typeof(var) FROM v_types;

-- arrays: shredded elements with a null element, nested objects in a list
\set f :corpus '/case-086.parquet'
CREATE FOREIGN TABLE v_array (id int, var jsonb) SERVER variant_srv OPTIONS (filename :'f');
SELECT var, jsonb_array_length(var) FROM v_array;
\set f :corpus '/case-045.parquet'
CREATE FOREIGN TABLE v_array_obj (id int, var jsonb) SERVER variant_srv OPTIONS (filename :'f');
SELECT id, var FROM v_array_obj ORDER BY id;

-- declared types: text and json through jsonb's casts, a number to numeric
\set f :corpus '/case-134.parquet'
CREATE FOREIGN TABLE v_text (id int, var text) SERVER variant_srv OPTIONS (filename :'f');
SELECT var FROM v_text;
CREATE FOREIGN TABLE v_json (id int, var json) SERVER variant_srv OPTIONS (filename :'f');
SELECT var FROM v_json;
\set f :corpus '/case-026.parquet'
CREATE FOREIGN TABLE v_numeric (id int, var numeric) SERVER variant_srv OPTIONS (filename :'f');
SELECT var, var * 2 AS doubled FROM v_numeric;

-- test/data/variant/variant.parquet (test/data/variant/make_variant.mjs): 9000 DuckDB-written rows in
-- two row groups of 4500, shredded by DuckDB into typed object fields, lists
-- of objects and residual values; each value follows from id, so PostgreSQL
-- builds the expected jsonb itself and every row is compared
\set f :abs_srcdir '/test/data/variant/variant.parquet'
CREATE FOREIGN TABLE v_gen (id bigint, v jsonb) SERVER variant_srv OPTIONS (filename :'f');
CREATE TEMP VIEW v_gen_check AS
  SELECT id, v, CASE
    WHEN id % 100 = 99 THEN 'null'::jsonb
    WHEN id % 8 = 0 THEN to_jsonb(id)
    WHEN id % 8 = 1 THEN to_jsonb('s' || id)
    WHEN id % 8 = 2 THEN jsonb_build_object('a', id, 'b', 'x' || id)
    WHEN id % 8 = 3 THEN jsonb_build_object('a', 'str' || id, 'c', jsonb_build_array(id, id + 1))
    WHEN id % 8 = 4 THEN jsonb_build_array(id, NULL, id * 2)
    WHEN id % 8 = 5 THEN jsonb_build_object('a', id, 'd', jsonb_build_object('deep',
      jsonb_build_array(jsonb_build_object('k', id), jsonb_build_object('k', NULL))), 'z', id / 4.0)
    WHEN id % 8 = 6 THEN to_jsonb((id * 1.25)::numeric(18,3))
    ELSE jsonb_build_object('b', 'only b', 'd', to_char(date '2020-02-29' + (id % 1000)::int, 'YYYY-MM-DD'),
      'e', id % 16 = 7)
  END AS want
  FROM v_gen;
SELECT count(*) AS rows, count(DISTINCT id) AS ids, min(id), max(id),
       count(*) FILTER (WHERE v IS DISTINCT FROM want) AS differ
  FROM v_gen_check;
SELECT id, v, want FROM v_gen_check WHERE v IS DISTINCT FROM want ORDER BY id LIMIT 5;
SELECT id, v FROM v_gen WHERE id IN (99, 4096, 4097, 4500, 4501, 8997) ORDER BY id;

-- test/data/variant/nested_variant.parquet (test/data/variant/make_nested_variant.py,
-- read the same by DuckDB): VARIANT groups inside a struct (one of them
-- shredded, an int64 typed_value next to a residual value) and as the
-- elements of a list, with null groups, null parents, empty lists and
-- Variant null elements; each row follows from id
\set f :abs_srcdir '/test/data/variant/nested_variant.parquet'
CREATE FOREIGN TABLE v_nested (id bigint, st jsonb, lv jsonb)
  SERVER variant_srv OPTIONS (filename :'f');
CREATE TEMP VIEW v_nested_check AS
  SELECT id, st, lv,
    CASE WHEN id % 9 = 0 THEN NULL ELSE jsonb_build_object('k', id,
      'v', CASE WHEN id % 5 = 0 THEN NULL WHEN id % 2 = 0 THEN to_jsonb(id)
                ELSE jsonb_build_object('a', 's' || id) END,
      'w', CASE WHEN id % 4 = 0 THEN NULL WHEN id % 3 = 0 THEN to_jsonb('w' || id)
                ELSE to_jsonb(id * 10) END) END AS want_st,
    CASE WHEN id % 7 = 0 THEN NULL WHEN id % 11 = 0 THEN '[]'::jsonb
         ELSE jsonb_build_array(id, 'x' || id, NULL, NULL) END AS want_lv
  FROM v_nested;
SELECT count(*) AS rows, min(id), max(id),
       count(*) FILTER (WHERE st IS DISTINCT FROM want_st) AS st_differ,
       count(*) FILTER (WHERE lv IS DISTINCT FROM want_lv) AS lv_differ,
       count(*) FILTER (WHERE st IS NULL) AS st_null,
       count(*) FILTER (WHERE lv = '[]') AS lv_empty
  FROM v_nested_check;
SELECT id, st, lv FROM v_nested WHERE id IN (3, 4, 5, 9, 11, 14) ORDER BY id;
SELECT id, st -> 'v' -> 'a' AS a, lv -> 0 AS first FROM v_nested WHERE id = 7 OR id = 13 ORDER BY id;

-- invalid files: a clean XX001 naming the problem
CREATE FUNCTION variant_error(path text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; det text;
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE v_bad (id int, var jsonb) SERVER variant_srv OPTIONS (filename %L)', path);
  BEGIN
    PERFORM * FROM v_bad;
    st := 'no error';
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
  END;
  DROP FOREIGN TABLE v_bad;
  RETURN st || ': ' || coalesce(msg, '') || ' / ' || coalesce(det, '');
END $$;
\set f :corpus '/case-042.parquet'
SELECT variant_error(:'f');	-- value and a primitive typed_value both set
\set f :corpus '/case-087.parquet'
SELECT variant_error(:'f');	-- non-object value with shredded fields
\set f :corpus '/case-127.parquet'
SELECT variant_error(:'f');	-- typed_value INTEGER(32,false)
\set f :corpus '/case-137.parquet'
SELECT variant_error(:'f');	-- typed_value FIXED_LEN_BYTE_ARRAY(4)

DROP FUNCTION variant_error(text);
DROP SERVER variant_srv CASCADE;
