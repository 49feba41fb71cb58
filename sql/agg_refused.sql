--
-- agg_refused: when aggregate pushdown is not used, EXPLAIN (VERBOSE) of
-- the foreign scan says why on one line, "Aggregate Pushdown: not used
-- (<reason>)", naming the first piece that stopped it.  Each query's
-- result is also compared with the same query over a heap copy of the
-- file (the refusal must not change answers).
--
-- test/data/aggregate/aggregate.parquet: see sql/aggregate.sql.
--
\getenv abs_srcdir PG_ABS_SRCDIR
\set agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SET max_parallel_workers_per_gather = 0;

CREATE SERVER refused_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE refused (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER refused_srv OPTIONS (filename :'agg');
CREATE TABLE refused_heap AS SELECT * FROM refused;
CREATE FOREIGN TABLE refused_named (l_returnflag text, l_quantity numeric(15,2),
    file text OPTIONS (filename_column 'true'))
  SERVER refused_srv OPTIONS (filename :'agg');

-- The pushdown line of the plan ('pushed' when the scan computes the
-- aggregate itself, nothing when no line names it), then the number of
-- rows that differ from the heap table's answer.
CREATE FUNCTION refused_why(q text, heap_q text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  why text := 'no line';
  diff bigint;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
    IF ln ~ 'Aggregate Pushdown: not used' THEN
      why := regexp_replace(ln, '^ *', '');
    ELSIF ln ~ 'Aggregate Pushdown: ' THEN
      why := 'pushed';
    END IF;
  END LOOP;
  EXECUTE 'SELECT count(*) FROM ((' || q || ' EXCEPT ALL ' ||
          coalesce(heap_q, replace(q, 'FROM refused', 'FROM refused_heap')) ||
          ') UNION ALL (' ||
          coalesce(heap_q, replace(q, 'FROM refused', 'FROM refused_heap')) ||
          ' EXCEPT ALL ' || q || ')) d' INTO diff;
  RETURN why || ', ' || diff || ' differences';
END $$;

-- pushed: no "not used" line
SELECT refused_why($$SELECT l_returnflag, count(*), sum(l_quantity) FROM refused GROUP BY l_returnflag$$);
-- no aggregate at all: no line
SELECT refused_why($$SELECT l_returnflag FROM refused WHERE l_orderkey < 3$$);

-- aggregates the scan does not compute
SELECT refused_why($$SELECT count(DISTINCT wide) FROM refused$$);
SELECT refused_why($$SELECT count(*) FILTER (WHERE i4 > 0) FROM refused$$);
SELECT refused_why($$SELECT string_agg(l_linestatus, '' ORDER BY l_orderkey) FROM refused WHERE l_orderkey < 20$$);
SELECT refused_why($$SELECT l_linestatus, stddev(i4)::numeric(20,6) FROM refused GROUP BY 1$$);
SELECT refused_why($$SELECT sum(length(l_returnflag)) FROM refused$$);
SELECT refused_why($$SELECT min(l_returnflag), max(l_linestatus) FROM refused$$);
SELECT refused_why($$SELECT max(l_shipdate + 1) FROM refused$$);

-- conditions, group keys and expressions
SELECT refused_why($$SELECT count(*) FROM refused WHERE l_returnflag LIKE '%N%'$$);
SELECT refused_why($$SELECT count(*) FROM refused WHERE l_returnflag <> 'A' OR i2 > 0$$);
SELECT refused_why($$SELECT extract(year FROM l_shipdate), count(*) FROM refused GROUP BY 1$$);
SELECT refused_why($$SELECT date_trunc('month', l_shipdate), sum(i2) FROM refused GROUP BY 1$$);
SELECT refused_why($$SELECT f8 > 100, count(*) FROM refused GROUP BY f8 > 100$$);
SELECT refused_why($$SELECT wide, count(*) FROM refused GROUP BY wide HAVING count(*) > 1$$);
SELECT refused_why($$SELECT l_returnflag, count(*) FROM refused GROUP BY ROLLUP (l_returnflag)$$);

-- expressions of group columns only (and constants beside a column key)
-- are computed above the scan: pushed, same answers, same errors
SELECT refused_why($$SELECT 1, l_returnflag, count(*) FROM refused GROUP BY 1, l_returnflag$$);
SELECT refused_why($$SELECT i2, i2 - 1, i2 * 2, count(*) FROM refused GROUP BY i2, i2 - 1, i2 * 2$$);
SELECT refused_why($$SELECT l_returnflag || l_linestatus, l_returnflag, l_linestatus, sum(i4) FROM refused GROUP BY 1, 2, 3$$);
SET timezone = 'America/New_York';
SELECT refused_why($$SELECT l_shipdate, date_trunc('month', l_shipdate), count(*) FROM refused GROUP BY 1, 2$$);
RESET timezone;
SELECT refused_why($$SELECT 1, count(*) FROM refused WHERE i2 > 30000 GROUP BY 1$$);
SELECT refused_why($$SELECT i2 + 1, count(*) FROM refused GROUP BY i2 + 1$$);
\set VERBOSITY terse
CREATE FUNCTION refused_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF ln ~ 'Pushdown|Group Keys' THEN RETURN NEXT ln; END IF;
  END LOOP;
END $$;
SELECT refused_plan($$SELECT i2, i2 * 3::smallint, count(*) FROM refused GROUP BY 1, 2$$);
SELECT count(*) FROM (SELECT i2, i2 * 3::smallint, count(*) FROM refused GROUP BY 1, 2) s;
SELECT count(*) FROM (SELECT i2, i2 * 3::smallint, count(*) FROM refused_heap GROUP BY 1, 2) s;
\set VERBOSITY default

-- a virtual column: the file's name is not in the file
SELECT refused_why($$SELECT count(file), sum(l_quantity) FROM refused_named$$,
                   $$SELECT count(*), sum(l_quantity) FROM refused_heap$$);

-- switched off
SET parquet_fdw.enable_aggregate_pushdown = off;
SELECT refused_why($$SELECT count(*) FROM refused$$);
RESET parquet_fdw.enable_aggregate_pushdown;

-- only under VERBOSE
CREATE FUNCTION refused_lines(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  ln text;
  n bigint := 0;
BEGIN
  FOR ln IN EXECUTE q LOOP
    IF ln ~ 'not used' THEN n := n + 1; END IF;
  END LOOP;
  RETURN n;
END $$;
SELECT refused_lines($$EXPLAIN (COSTS OFF) SELECT count(DISTINCT wide) FROM refused$$) AS plain,
       refused_lines($$EXPLAIN (VERBOSE, COSTS OFF) SELECT count(DISTINCT wide) FROM refused$$) AS verbose;

DROP SERVER refused_srv CASCADE;
