--
-- nested_fields: a column reads a field inside structs named by a dotted
-- path in its column_name option ('loc.lat', 'loc.inner_v.x'), in Parquet
-- files and Amudai shards.  Each step matches a name as a top-level field
-- does (exact, else the only case-insensitive match); every group passed
-- through must be a struct, so the column has one value per row; a NULL
-- struct makes its fields NULL.  Results are compared with the same rows
-- read from a heap table's composite column; filters, pruning and the
-- aggregate pushdown treat the field as any column.
--
LOAD 'parquet_fdw';
SELECT current_setting('data_directory') || '/pf_nested_fields.parquet' AS f \gset
CREATE SERVER nf_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TYPE nf_inner AS (x int, s text);
CREATE TYPE nf_loc AS (lat float8, lon float8, city text, inner_v nf_inner, tags text[]);
-- loc NULL every 11th row; lon NULL every 7th; inner_v NULL every 3rd
CREATE TABLE nf_heap (id int, loc nf_loc);
INSERT INTO nf_heap
SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE
         ROW(g * 0.5, CASE WHEN g % 7 = 0 THEN NULL ELSE -g END, 'c' || (g % 5),
             CASE WHEN g % 3 = 0 THEN NULL ELSE ROW(g, 's' || g)::nf_inner END,
             ARRAY['a', g::text])::nf_loc END
FROM generate_series(1, 5000) g;
COPY nf_heap TO :'f' (FORMAT parquet, row_group_size 1000);
-- EXPLAIN without the file's path (it differs between runs)
CREATE FUNCTION nf_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    CONTINUE WHEN ln ~ '(Amudai Shard|Parquet File)s?:';
    RETURN NEXT ln;
  END LOOP;
END $$;
CREATE FOREIGN TABLE nf_ft (id int,
    lat float8 OPTIONS (column_name 'loc.lat'),
    lon float8 OPTIONS (column_name 'loc.lon'),
    city text OPTIONS (column_name 'LOC.City'),
    ix int OPTIONS (column_name 'loc.inner_v.x'),
    inner_v jsonb OPTIONS (column_name 'loc.inner_v'),
    tags text[] OPTIONS (column_name 'loc.tags'))
  SERVER nf_srv OPTIONS (filename :'f');
SELECT * FROM nf_ft WHERE id IN (1, 3, 7, 11, 21) ORDER BY id;
-- every row, both ways
SELECT count(*) FROM (
  (SELECT id, lat, lon, city, ix, inner_v ->> 's', tags FROM nf_ft
   EXCEPT ALL
   SELECT id, (loc).lat, (loc).lon, (loc).city, ((loc).inner_v).x, ((loc).inner_v).s, (loc).tags FROM nf_heap)
  UNION ALL
  (SELECT id, (loc).lat, (loc).lon, (loc).city, ((loc).inner_v).x, ((loc).inner_v).s, (loc).tags FROM nf_heap
   EXCEPT ALL
   SELECT id, lat, lon, city, ix, inner_v ->> 's', tags FROM nf_ft)) d;
-- statistics of the nested leaf prune row groups
SELECT nf_explain('SELECT id FROM nf_ft WHERE lat < 10');
SELECT count(*) FROM nf_ft WHERE lat < 10;
-- the aggregate pushdown groups and filters by nested fields
SELECT nf_explain('SELECT city, count(*), sum(lat), min(lon), count(ix) FROM nf_ft WHERE lat > 100 GROUP BY city');
SELECT city, count(*), sum(lat), min(lon), count(ix) FROM nf_ft WHERE lat > 100 GROUP BY city ORDER BY 1;
SELECT (loc).city, count(*), sum((loc).lat), min((loc).lon), count(((loc).inner_v).x)
FROM nf_heap WHERE (loc).lat > 100 GROUP BY 1 ORDER BY 1;
-- a top-level field whose name has a dot wins over the path
CREATE TABLE nf_dotted ("loc.lat" text, loc nf_loc);
INSERT INTO nf_dotted VALUES ('top', ROW(1.5, 2, 'x', NULL, NULL));
SELECT current_setting('data_directory') || '/pf_nested_dotted.parquet' AS fd \gset
COPY nf_dotted TO :'fd' (FORMAT parquet);
CREATE FOREIGN TABLE nf_dot_ft (a text OPTIONS (column_name 'loc.lat'), b float8 OPTIONS (column_name 'loc.lon'))
  SERVER nf_srv OPTIONS (filename :'fd');
SELECT * FROM nf_dot_ft;
-- paths that name no field, or pass through a list: not found
\set VERBOSITY terse
CREATE FOREIGN TABLE nf_bad1 (x float8 OPTIONS (column_name 'loc.nope')) SERVER nf_srv OPTIONS (filename :'f');
SELECT * FROM nf_bad1;
CREATE FOREIGN TABLE nf_bad2 (x text OPTIONS (column_name 'loc.tags.list.element')) SERVER nf_srv OPTIONS (filename :'f');
SELECT * FROM nf_bad2;
CREATE FOREIGN TABLE nf_bad3 (x text OPTIONS (column_name 'id.x')) SERVER nf_srv OPTIONS (filename :'f');
SELECT * FROM nf_bad3;
\set VERBOSITY default

-- Amudai: the shard of amudai_nested (pt Struct{x Float64, y Int64}, pt
-- NULL in row 2), its struct fields as columns against the jsonb struct
\getenv abs_srcdir PG_ABS_SRCDIR
\set af :abs_srcdir '/test/data/amudai/nested.amudai.shard'
CREATE FOREIGN TABLE nf_am (id int, px float8 OPTIONS (column_name 'pt.x'),
    py bigint OPTIONS (column_name 'PT.y'), pt jsonb)
  SERVER nf_srv OPTIONS (filename :'af');
SELECT id, px, py, px IS NOT DISTINCT FROM (pt ->> 'x')::float8 AS same_x FROM nf_am ORDER BY id;
SELECT nf_explain('SELECT count(*), sum(px) FROM nf_am WHERE px < 1');
SELECT count(*), sum(px) FROM nf_am WHERE px < 1;

DROP SERVER nf_srv CASCADE;
DROP TABLE nf_heap, nf_dotted;
DROP TYPE nf_loc, nf_inner;
DROP FUNCTION nf_explain(text);
