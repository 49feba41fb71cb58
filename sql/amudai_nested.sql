--
-- amudai_nested: nested shard fields as jsonb.  test/data/amudai/ holds the
-- two-level shard test/unit/test_amudai_nested.c lays out byte by byte
-- (written there with AMUDAI_FIXTURE_DIR set): id Int32 1..5 in a stripe
-- file beside the root; tags List<String> ["a","b"], [], null, ["b"],
-- ["c",null,"a"]; pt Struct{x Float64, y Int64 (absent: all null)} with pt
-- null in row 2 and x 0.5, -, -1.5, 2.0, NaN; ok Boolean t, f, t, f, null;
-- fsl FixedSizeList(2) of Int16 10..19; gone, a field the stripe lacks.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set f :abs_srcdir '/test/data/amudai/nested.amudai.shard'

CREATE SERVER amn_srv FOREIGN DATA WRAPPER parquet_fdw;

-- inferred columns: structs and fixed-size lists are jsonb
SELECT parquet_create_foreign_table('amn', 'amn_srv', :'f');
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'amn'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM amn ORDER BY id;

-- the JSON values against the ones the unit test asserts
SELECT id, pt = CASE id
    WHEN 1 THEN '{"x": 0.5, "y": null}'::jsonb
    WHEN 3 THEN '{"x": -1.5, "y": null}'
    WHEN 4 THEN '{"x": 2, "y": null}'
    WHEN 5 THEN '{"x": "NaN", "y": null}' END AS pt_ok,
  fsl = jsonb_build_array(8 + 2 * id, 9 + 2 * id) AS fsl_ok,
  jsonb_typeof(pt -> 'x') AS x_type
FROM amn ORDER BY id;

-- a list declared jsonb is a JSON array; only some columns
CREATE FOREIGN TABLE amn_json (id int, tags jsonb, fsl jsonb)
  SERVER amn_srv OPTIONS (filename :'f');
SELECT id, tags, fsl -> 1 AS second FROM amn_json ORDER BY id;
SELECT id FROM amn WHERE (pt ->> 'x')::float8 < 1 ORDER BY id;

-- ANALYZE reads the nested columns too
ANALYZE amn;
SELECT attname, null_frac FROM pg_stats WHERE tablename = 'amn' ORDER BY attname;

DROP SERVER amn_srv CASCADE;
