--
-- copy_to_nested: COPY TO writes composite types as STRUCT and arrays (of
-- anything, with any number of dimensions) as nested LISTs.  Each file is
-- read back through foreign tables (as jsonb and as the composite types)
-- and compared with the heap table's to_jsonb(); random nested values from
-- a seeded generator round-trip under several page and row group layouts.
--
LOAD 'parquet_fdw';
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT current_setting('data_directory') || '/pf_nested.parquet' AS nested_file,
       current_setting('data_directory') || '/pf_nested_rand.parquet' AS rand_file
\gset

CREATE SERVER nested_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TYPE nw_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE nw_point AS (x int, label text);
CREATE TYPE nw_outer AS (id int8, p nw_point, tags text[], pts nw_point[],
                         amount numeric(12,2), mood nw_mood, at timestamptz);

-- every kind of absence: NULL struct / struct of NULLs, NULL list / empty
-- list / list of NULL, at the top and inside
CREATE TABLE nested_src (
    id int NOT NULL,
    s nw_point,
    o nw_outer,
    a int[],
    m int[][],
    cube text[],
    ap nw_point[],
    ao nw_outer[],
    req nw_point NOT NULL
);
INSERT INTO nested_src VALUES
 (1, ROW(1, 'a'),
     ROW(10, ROW(2, 'b'), '{x,NULL,y}', ARRAY[ROW(3, 'c')::nw_point, NULL, ROW(NULL, NULL)::nw_point],
         12.5, 'ok', '2024-01-02 03:04:05+00'),
     '{1,2,NULL}', '{{1,2},{3,NULL}}', '{{{a,b},{c,d}},{{e,NULL},{g,h}}}',
     ARRAY[ROW(5, 'e')::nw_point], ARRAY[ROW(1, NULL, '{}', '{}', NULL, NULL, NULL)::nw_outer],
     ROW(1, 'r')),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ROW(NULL, NULL)),
 (3, ROW(NULL, NULL), ROW(NULL, NULL, NULL, NULL, NULL, NULL, NULL), '{}', '{}', '{}', '{}', '{}',
     ROW(3, NULL)),
 (4, ROW(4, 'd'), ROW(11, NULL, '{}', '{}', -0.01, 'sad', NULL), '{NULL}', '{{5},{6},{7}}',
     '{{{z}}}', ARRAY[NULL::nw_point], ARRAY[NULL::nw_outer, ROW(2, ROW(9, 'n'), '{q}', ARRAY[NULL::nw_point], 1, 'happy', NULL)::nw_outer],
     ROW(NULL, 'q'));

COPY nested_src TO :'nested_file' (FORMAT parquet);

-- the layout: STRUCT groups, 3-level LISTs, inner dimensions REQUIRED
SELECT path, repetition, physical_type, logical_type, max_def, max_rep, num_children
FROM parquet_schema(:'nested_file') ORDER BY position;

-- read back as jsonb: the same values as the heap table's to_jsonb()
CREATE FOREIGN TABLE nested_json (id int, s jsonb, o jsonb, a jsonb, m jsonb,
                                  cube jsonb, ap jsonb, ao jsonb, req jsonb)
SERVER nested_srv OPTIONS (filename :'nested_file');
SELECT id, s, o, m, cube, ap FROM nested_json ORDER BY id;
SELECT id, ao FROM nested_json ORDER BY id;
SELECT (SELECT jsonb_agg(to_jsonb(j) ORDER BY id) FROM nested_json j) =
       (SELECT jsonb_agg(to_jsonb(n) ORDER BY id) FROM nested_src n) AS same_as_heap;

-- read back as the composite types and arrays of one dimension
CREATE FOREIGN TABLE nested_typed (id int, s nw_point, o nw_outer, a int[], req nw_point)
SERVER nested_srv OPTIONS (filename :'nested_file');
SELECT * FROM nested_typed ORDER BY id;
SELECT count(*) AS differ FROM (
    (SELECT id, s, o, a, req FROM nested_typed EXCEPT ALL SELECT id, s, o, a, req FROM nested_src)
    UNION ALL
    (SELECT id, s, o, a, req FROM nested_src EXCEPT ALL SELECT id, s, o, a, req FROM nested_typed)) d;

-- a declared int[][] keeps two dimensions even when no row has a value yet
CREATE TABLE nested_declared (id int, m int[][]);
INSERT INTO nested_declared VALUES (1, NULL), (2, '{}');
COPY nested_declared TO :'nested_file' (FORMAT parquet);
SELECT path, repetition, max_def, max_rep FROM parquet_schema(:'nested_file') ORDER BY position;
-- without a declaration, rows without values give one dimension
COPY (SELECT id, m AS m FROM nested_declared) TO :'nested_file' (FORMAT parquet);
SELECT path, max_def, max_rep FROM parquet_schema(:'nested_file') ORDER BY position;

-- errors: the dimensions differ between rows; a lower bound; an anonymous record
COPY (SELECT * FROM (VALUES (1, ARRAY[[1, 2]]), (2, ARRAY[3])) v(id, arr)) TO :'nested_file' (FORMAT parquet);
COPY (SELECT ARRAY[ROW(1, '[2:3]={x,y}'::text[])::record] AS r) TO :'nested_file' (FORMAT parquet);
CREATE TYPE nw_holder AS (id int, v int[]);
COPY (SELECT ROW(1, '[2:3]={7,8}')::nw_holder AS h) TO :'nested_file' (FORMAT parquet);
-- a nested column cannot be a sorting column
COPY (SELECT 1 AS id, ROW(1, 'a')::nw_point AS s) TO :'nested_file'
    (FORMAT parquet, sorting_columns 's');

-- random nested values: a seeded generator, each row a mix of NULLs,
-- empty and non-empty lists, 1-3 dimensional arrays, structs of NULLs
SELECT setseed(0.14);
CREATE TABLE nested_rand AS
SELECT g AS id,
       CASE WHEN r1 < 0.1 THEN NULL
            ELSE ROW(CASE WHEN r2 < 0.2 THEN NULL ELSE (r2 * 1000)::int END,
                     CASE WHEN r3 < 0.2 THEN NULL ELSE md5(g::text) END)::nw_point END AS s,
       CASE WHEN r1 < 0.05 THEN NULL
            WHEN r2 < 0.1 THEN '{}'::int[]
            ELSE ARRAY(SELECT CASE WHEN random() < 0.15 THEN NULL ELSE (random() * 100)::int END
                       FROM generate_series(1, (r3 * 6)::int)) END AS a,
       CASE WHEN r2 < 0.1 THEN NULL
            WHEN r3 < 0.1 THEN '{}'::int[]
            ELSE array_fill((r1 * 50)::int, ARRAY[1 + (r2 * 3)::int, 1 + (r3 * 2)::int]) END AS m,
       CASE WHEN r3 < 0.1 THEN NULL
            ELSE ARRAY(SELECT CASE WHEN random() < 0.2 THEN NULL
                                   ELSE ROW(g,
                                            CASE WHEN random() < 0.2 THEN NULL ELSE ROW(k, 't' || k)::nw_point END,
                                            CASE WHEN random() < 0.3 THEN NULL
                                                 ELSE ARRAY(SELECT 'e' || e FROM generate_series(1, k % 3) e) END,
                                            ARRAY(SELECT ROW(e, NULL)::nw_point FROM generate_series(1, k % 2) e),
                                            k / 4.0, NULL, NULL)::nw_outer END
                       FROM generate_series(1, (r1 * 4)::int) k) END AS ao
FROM (SELECT g, random() AS r1, random() AS r2, random() AS r3
      FROM generate_series(1, 3000) g) src;
SELECT count(*) AS rows, count(s) > 2000 AS structs, count(a) > 2000 AS lists,
       count(ao) > 2000 AS struct_lists, count(*) FILTER (WHERE array_ndims(m) = 2) > 2000 AS two_dims
FROM nested_rand;
CREATE FOREIGN TABLE nested_rand_json (id int, s jsonb, a jsonb, m jsonb, ao jsonb)
SERVER nested_srv OPTIONS (filename :'rand_file');
-- small pages and row groups cut lists at row starts; v2 pages; no dictionary
COPY nested_rand TO :'rand_file' (FORMAT parquet);
SELECT count(*) AS differ FROM nested_rand n JOIN nested_rand_json j USING (id)
WHERE to_jsonb(n) - 'id' IS DISTINCT FROM to_jsonb(j) - 'id';
COPY nested_rand TO :'rand_file' (FORMAT parquet, row_group_size 700, page_size 1024);
SELECT count(*) AS differ FROM nested_rand n JOIN nested_rand_json j USING (id)
WHERE to_jsonb(n) - 'id' IS DISTINCT FROM to_jsonb(j) - 'id';
COPY nested_rand TO :'rand_file' (FORMAT parquet, data_page_version 2, dictionary false,
                                  compression zstd, row_group_size 1000);
SELECT count(*) AS differ FROM nested_rand n JOIN nested_rand_json j USING (id)
WHERE to_jsonb(n) - 'id' IS DISTINCT FROM to_jsonb(j) - 'id';
SELECT count(*) AS rows FROM nested_rand_json;
SELECT count(DISTINCT row_group) AS row_groups FROM parquet_metadata(:'rand_file');

DROP FOREIGN TABLE nested_json, nested_typed, nested_rand_json;
DROP TABLE nested_src, nested_declared, nested_rand;
DROP TYPE nw_holder, nw_outer, nw_point, nw_mood;
DROP SERVER nested_srv;
