--
-- agg_partial: aggregate pushdown inside parallel workers.  Each
-- participant aggregates the row groups it claims and returns its groups'
-- transition states (PARTIAL Aggrefs); PostgreSQL's Gather and Finalize
-- Aggregate combine them.
--
-- A heap table is written to Parquet by COPY TO in row groups of 1500
-- rows (16 of them); part_same() runs a query over the foreign table and
-- over the heap table, compares the results as multisets of rows as text
-- (EXCEPT ALL both ways) and says how the foreign query ran: "partial
-- pushdown" (a Parallel Foreign Scan computing the aggregates), "serial
-- pushdown" or "not pushed".  Float columns hold multiples of 1/4 small
-- enough that their sums are exact in any order.
--
LOAD 'parquet_fdw';
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SELECT current_setting('data_directory') || '/pf_partial.parquet' AS part_file \gset
SELECT current_setting('data_directory') || '/pf_partial_a.parquet' AS part_a \gset
SELECT current_setting('data_directory') || '/pf_partial_b.parquet' AS part_b \gset
\set part_ab :part_a ',' :part_b

CREATE SERVER part_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE part_heap (i int, g int, k text, i2 smallint, i4 int, e int,
    i8 bigint, f4 real, f8 float8, n numeric(12,2), t text, d date,
    ts timestamp, b boolean, u text);
INSERT INTO part_heap
SELECT i,
       CASE WHEN i % 50 = 0 THEN NULL ELSE i % 7 END,
       CASE WHEN i % 31 = 0 THEN NULL ELSE 'k' || (i % 13) END,
       CASE WHEN i % 9 = 0 THEN NULL ELSE i % 1000 - 500 END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE i * 37 - 400000 END,
       -- int4 near both ends: sums far outside int4, inside int8
       CASE WHEN i % 3 = 0 THEN -2147483648 + i % 5 ELSE 2147483647 - i % 5 END,
       i * 1000003::bigint,
       CASE WHEN i = 777 THEN 'NaN'::real WHEN i % 13 = 0 THEN NULL
            ELSE (i % 200) * 0.25 - 20 END,
       CASE WHEN i % 5000 = 123 THEN 'NaN'::float8 WHEN i % 17 = 0 THEN NULL
            ELSE (i % 1000) * 0.5 END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE i * 1.25 - 300 END,
       CASE WHEN i % 23 = 0 THEN NULL ELSE md5(i::text) END,
       CASE WHEN i % 29 = 0 THEN NULL ELSE date '2020-01-01' + i % 400 END,
       CASE WHEN i % 37 = 0 THEN NULL
            ELSE timestamp '2021-03-01' + i * interval '17 minutes' END,
       CASE WHEN i % 10 = 0 THEN NULL ELSE i % 3 = 0 END,
       'http://site' || (i % 5) || '.example/p/' || (i % 500) || '?q=' || i % 3
FROM generate_series(1, 24000) i;
COPY part_heap TO :'part_file' (FORMAT parquet, row_group_size 1500);
CREATE FOREIGN TABLE part_ft (i int, g int, k text, i2 smallint, i4 int, e int,
    i8 bigint, f4 real, f8 float8, n numeric(12,2), t text, d date,
    ts timestamp, b boolean, u text)
  SERVER part_srv OPTIONS (filename :'part_file');
-- two files of one row group each: with the leader and two workers, one
-- participant at least claims no row group
CREATE TABLE part_heap2 AS SELECT * FROM part_heap WHERE i <= 3000;
COPY (SELECT * FROM part_heap2 WHERE i <= 1000) TO :'part_a' (FORMAT parquet);
COPY (SELECT * FROM part_heap2 WHERE i > 1000) TO :'part_b' (FORMAT parquet);
CREATE FOREIGN TABLE part_ft2 (i int, g int, k text, i2 smallint, i4 int, e int,
    i8 bigint, f4 real, f8 float8, n numeric(12,2), t text, d date,
    ts timestamp, b boolean, u text)
  SERVER part_srv OPTIONS (filename :'part_ab');
ANALYZE part_heap;
ANALYZE part_heap2;

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION part_same(q text, ft text DEFAULT 'part_ft',
                          heap text DEFAULT 'part_heap') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', ft);
  plan text[] := ARRAY(SELECT pf_plan_lines(qf, '', 'VERBOSE, COSTS OFF'));
  pushed bool := EXISTS (SELECT FROM unnest(plan) l
                         WHERE l ~ 'Aggregate Pushdown: ' AND l !~ 'not used');
  parallel bool := EXISTS (SELECT FROM unnest(plan) l WHERE l ~ 'Parallel Foreign Scan');
  merged bool := EXISTS (SELECT FROM unnest(plan) l WHERE l ~ 'Gather Merge');
  diff bigint;
BEGIN
  SELECT differences INTO diff FROM pf_diff(qf, replace(q, 'TBL', heap));
  RETURN CASE WHEN pushed AND parallel AND merged THEN 'partitioned pushdown'
              WHEN pushed AND parallel THEN 'partial pushdown'
              WHEN pushed THEN 'serial pushdown' ELSE 'not pushed' END ||
         ', ' || diff || ' differences';
END $$;

-- parallel plans whatever their cost
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- the exchange (agg_exchange.sql) would win these plans: the partial and
-- partitioned paths are tested here
SET parquet_fdw.exchange_aggregate = off;

-- The plan's nodes and pushdown lines (no paths, costs or row counts).
CREATE FUNCTION part_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || replace(q, 'TBL', 'part_ft') LOOP
    IF ln ~ '^ *(->  )?(Limit|Finalize|Gather|Workers Planned|Parallel Foreign Scan|Foreign Scan|Aggregate Pushdown|Pushed Group Keys|Pushed Top-N)' THEN
      RETURN NEXT ln;
    END IF;
  END LOOP;
END $$;

-- ===== the plan: Finalize Aggregate over Gather over the partial scan
SELECT part_plan('SELECT count(*), sum(i4), avg(f8), min(t) FROM TBL');

-- ===== no GROUP BY: every aggregate the workers hand states of
SELECT part_same('SELECT count(*), count(i4), count(t), sum(i2), sum(i4), sum(e),
    avg(i2), avg(i4), avg(e) FROM TBL');
SELECT part_same('SELECT min(i2), max(i2), min(i4), max(i4), min(i8), max(i8),
    min(n), max(n), min(d), max(d) FROM TBL');
SELECT part_same('SELECT min(t), max(t), min(k), max(k), count(b), count(d) FROM TBL');
-- floats with NULLs and NaN (f4 NaN at i = 777, f8 NaN five times)
SELECT part_same('SELECT sum(f4), sum(f8), avg(f4), avg(f8), min(f4), max(f4),
    min(f8), max(f8) FROM TBL');
SELECT part_same('SELECT sum(f4), sum(f8), avg(f4), avg(f8) FROM TBL
    WHERE f8 <> ''NaN''::float8 AND f4 <> ''NaN''::real');
-- arithmetic arguments
SELECT part_same('SELECT sum(i4 + i2), avg(i2 * 3), sum(f8 * 2), max(i4) FROM TBL');

-- ===== GROUP BY columns, NULL keys included
SELECT part_same('SELECT g, count(*), sum(i4), avg(i4), avg(f8), min(t), max(n),
    min(d), sum(e) FROM TBL GROUP BY g');
SELECT part_same('SELECT k, b, count(*), count(f4), sum(f4), avg(i2), max(t)
    FROM TBL GROUP BY k, b');
SELECT part_same('SELECT d, count(*), sum(i2) FROM TBL GROUP BY d');
-- a group expression of the group columns, a constant key
SELECT part_same('SELECT g, g * 10, 1, count(*) FROM TBL GROUP BY 1, 2, 3');

-- ===== computed keys (PostgreSQL's expressions evaluated in the workers)
SELECT part_same('SELECT extract(hour FROM ts) AS h, count(*), sum(i4), avg(f8)
    FROM TBL GROUP BY 1');
SELECT part_same('SELECT date_trunc(''month'', ts) AS m, count(*), min(t), max(i8)
    FROM TBL GROUP BY 1');
SELECT part_same('SELECT regexp_replace(u, ''^https?://([^/]+)/.*$'', ''\1'') AS host,
    count(*), avg(length(u)), min(u) FROM TBL GROUP BY 1');

-- ===== filters
SELECT part_same('SELECT g, count(*), sum(i4), avg(f4) FROM TBL
    WHERE i4 > 0 AND k <> ''k3'' AND t LIKE ''%a%'' GROUP BY g');
SELECT part_same('SELECT count(*), sum(i2) FROM TBL WHERE b AND d >= ''2020-06-01''');
SELECT part_same('SELECT k, count(*) FROM TBL WHERE i2 IS NULL GROUP BY k');

-- ===== HAVING (by the Finalize Aggregate)
SELECT part_same('SELECT k, count(*), avg(i4) FROM TBL GROUP BY k
    HAVING count(*) > 1800 AND avg(i4) > 0');

-- ===== no row passes (no md5 is 5 characters long; no row group can be
-- pruned at planning): no group, or the one group of empty states
SELECT part_same('SELECT g, count(*), sum(i4) FROM TBL WHERE length(t) = 5 GROUP BY g');
SELECT part_same('SELECT count(*), sum(i4), avg(i4), avg(f8), min(t), max(d), sum(f4)
    FROM TBL WHERE length(t) = 5');

-- ===== two files of one row group each: a participant without units
SELECT part_same('SELECT count(*), sum(i4), avg(i2), avg(f8), min(t), max(n) FROM TBL',
                 'part_ft2', 'part_heap2');
SELECT part_same('SELECT g, count(*), sum(e), avg(e) FROM TBL GROUP BY g',
                 'part_ft2', 'part_heap2');

-- ===== an Amudai shard: the participants share its stripes
SELECT current_setting('data_directory') || '/pf_partial.amudai.shard' AS part_shard \gset
SELECT parquet_fdw_write_amudai('SELECT i, g, k, i2, i4, e, f8, t, d FROM part_heap2',
                                :'part_shard', 500);
CREATE FOREIGN TABLE part_am (i int, g int, k text, i2 smallint, i4 int, e int,
    f8 float8, t text, d date)
  SERVER part_srv OPTIONS (filename :'part_shard');
SELECT part_same('SELECT g, k, count(*), sum(i4), avg(i2), avg(f8), min(t), max(d),
    sum(e) FROM TBL GROUP BY g, k', 'part_am', 'part_heap2');

-- ===== groups beyond work_mem: each worker spills its own
SET work_mem = '64kB';
SELECT part_same('SELECT t, count(*), sum(i4), min(d), avg(f8) FROM TBL GROUP BY t');
SELECT part_same('SELECT i8 % 9973 AS m, count(*), max(t) FROM TBL GROUP BY 1');
RESET work_mem;

-- ===== internal transition states (sum/avg of bigint and numeric): no
-- partial path, the answers as right as ever
SELECT part_same('SELECT sum(i8), avg(n) FROM TBL');

-- ===== a rescan of the Gather (the inner side of a nested loop): every
-- row group again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT v.x, a.c, a.s FROM (VALUES (1), (2), (3)) v(x),
    (SELECT count(*) AS c, sum(i4) AS s FROM part_ft) a ORDER BY 1;
SELECT v.x, a.c, a.s FROM (VALUES (1), (2), (3)) v(x),
    (SELECT count(*) AS c, sum(i4) AS s FROM part_heap) a ORDER BY 1;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- ===== ORDER BY ... LIMIT over many groups: the participants split the
-- groups by their keys' hashes, each returns its own top rows, a Gather
-- Merge merges them and a Limit cuts (a second sort key makes the answer
-- unique, so it is compared with the heap table's as a set).  Passing
-- every group up costs what it costs, as partial states would.
RESET parallel_tuple_cost;
ANALYZE part_ft;
SELECT part_plan('SELECT t, count(*) AS c FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 5');
SELECT part_same('SELECT t, count(*) AS c, sum(i4), avg(f8) FROM TBL
    GROUP BY t ORDER BY c DESC, t LIMIT 7');
-- NULL keys, two keys, an offset, ascending order
SELECT part_same('SELECT k, t, count(*) AS c, min(i2), max(n) FROM TBL
    GROUP BY k, t ORDER BY c DESC, k NULLS FIRST, t NULLS FIRST LIMIT 12 OFFSET 3');
-- a computed key: the partitions come from the stored one (g) alone
SELECT part_same('SELECT g, i8 % 20011 AS m, sum(i2) AS s, count(*) FROM TBL
    GROUP BY 1, 2 ORDER BY s, m, g LIMIT 9');
SELECT part_same('SELECT u, t, count(*) AS c, sum(e) FROM TBL WHERE i2 > 0
    GROUP BY u, t ORDER BY c DESC, u, t LIMIT 10');
-- HAVING, evaluated per participant on whole groups
SELECT part_same('SELECT t, count(*) AS c FROM TBL GROUP BY t
    HAVING min(i2) > 400 ORDER BY c, t LIMIT 6');
-- no group at all
SELECT part_same('SELECT t, count(*) AS c FROM TBL WHERE length(t) = 5
    GROUP BY t ORDER BY c DESC, t LIMIT 5');
-- groups beyond work_mem in each participant
SET work_mem = '64kB';
SELECT part_same('SELECT t, count(*) AS c, max(d) FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 8');
RESET work_mem;
-- no worker starts: the leader claims every partition
SET max_parallel_workers = 0;
SELECT part_same('SELECT t, count(*) AS c, sum(i4) FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 7');
RESET max_parallel_workers;
-- one worker and the leader: two partitions, one each
SET max_parallel_workers_per_gather = 1;
SELECT part_plan('SELECT t, count(*) AS c FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 5');
SELECT part_same('SELECT t, count(*) AS c, sum(i4), min(u) FROM TBL
    GROUP BY t ORDER BY c DESC, t LIMIT 7');
SELECT part_same('SELECT k, g, count(*) AS c, max(d) FROM TBL
    GROUP BY k, g ORDER BY c DESC, k NULLS FIRST, g NULLS FIRST LIMIT 11 OFFSET 2');
-- the leader only merges: two workers, two partitions
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT part_plan('SELECT t, count(*) AS c FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 5');
SELECT part_same('SELECT t, count(*) AS c, sum(i4), min(u) FROM TBL
    GROUP BY t ORDER BY c DESC, t LIMIT 7');
-- and one worker alone: nothing to split
SET max_parallel_workers_per_gather = 1;
SELECT pf_plan_has('SELECT t, count(*) AS c FROM part_ft GROUP BY t ORDER BY c DESC, t LIMIT 5',
                   'Gather Merge');
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 2;
-- off with partial aggregation
SET parquet_fdw.enable_partial_aggregate = off;
SELECT part_same('SELECT t, count(*) AS c FROM TBL GROUP BY t ORDER BY c DESC, t LIMIT 5');
RESET parquet_fdw.enable_partial_aggregate;

-- ===== how many workers: the scan's decoded rows as a heap would hold
-- them (24000 rows of one int: 107 pages of 8 kB), not its compressed
-- bytes (about 12 pages), against min_parallel_table_scan_size: 8 pages
-- make one worker, 24 two, 72 three (capped at two here); parallel
-- costs still 0
SET min_parallel_table_scan_size = '64kB';
SELECT pf_plan_lines('SELECT i FROM part_ft WHERE i % 1000 = 7',
                     'Workers Planned', 'COSTS OFF');
-- the default (8 MB): a scan this small stays serial
RESET min_parallel_table_scan_size;
SELECT pf_plan_has('SELECT i FROM part_ft WHERE i % 1000 = 7', 'Gather');
SELECT pf_plan_has('SELECT g, count(*), sum(i4) FROM part_ft GROUP BY g', 'Gather');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;

DROP FUNCTION part_same(text, text, text);
DROP FUNCTION part_plan(text);
DROP FOREIGN TABLE part_ft;
DROP FOREIGN TABLE part_ft2;
DROP FOREIGN TABLE part_am;
DROP TABLE part_heap;
DROP TABLE part_heap2;
DROP SERVER part_srv;
