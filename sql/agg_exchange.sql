--
-- agg_exchange: GROUP BY in parallel with an exchange (agg_exchange.c).
-- The participants scan disjoint row groups once, write each filtered
-- row's keys and aggregate arguments to the shared file of its key hash's
-- partition and, after a barrier, aggregate whole partitions: each
-- returns whole groups (a Gather above), or its own top rows (a Gather
-- Merge and a Limit above a pushed ORDER BY ... LIMIT).
--
-- parquet_fdw.exchange_aggregate = force takes the exchange whenever the
-- plan may be parallel (auto: when its cost wins; off: never).  xchg_same()
-- runs a query over the foreign table and over the heap table, compares
-- the results (as multisets, or as lists with ordered) and says whether
-- the exchange ran.  Float columns hold multiples of 1/4 small enough that
-- their sums are exact in any order.
--
SET datestyle = 'ISO, YMD';
SET timezone = 'UTC';
SET extra_float_digits = 3;
SELECT current_setting('data_directory') || '/pf_xchg.parquet' AS xchg_file \gset
SELECT current_setting('data_directory') || '/pf_xchg.amudai.shard' AS xchg_shard \gset

CREATE SERVER xchg_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE TABLE xchg_heap (i int, g int, k text, v bigint, f float8, d date,
    ts timestamp);
INSERT INTO xchg_heap
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE i % 4000 END,
       CASE WHEN i % 89 = 0 THEN NULL ELSE 'key ' || (i * 7) % 2500 END,
       (i * 7919) % 1000,
       CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 200) * 0.25 END,
       date '2024-01-01' + i % 90,
       timestamp '2024-01-01' + i * interval '7 minutes'
FROM generate_series(1, 24000) i;
COPY xchg_heap TO :'xchg_file' (FORMAT parquet, row_group_size 1500);
CREATE FOREIGN TABLE xchg_ft (i int, g int, k text, v bigint, f float8, d date,
    ts timestamp)
  SERVER xchg_srv OPTIONS (filename :'xchg_file');
SELECT parquet_fdw_write_amudai('SELECT * FROM xchg_heap ORDER BY i', :'xchg_shard', 1500);
CREATE FOREIGN TABLE xchg_am (i int, g int, k text, v bigint, f float8, d date,
    ts timestamp)
  SERVER xchg_srv OPTIONS (filename :'xchg_shard');
ANALYZE xchg_heap;

\set ECHO none
\i sql/include/compare.sql
\set ECHO all
CREATE FUNCTION xchg_same(q text, ordered bool DEFAULT false,
                          ft text DEFAULT 'xchg_ft') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  qf text := replace(q, 'TBL', ft);
  xchg bool := pf_plan_has(qf, 'Exchange: 32 partitions');
  diff bigint;
BEGIN
  SELECT differences INTO diff FROM pf_diff(qf, replace(q, 'TBL', 'xchg_heap'), ordered);
  RETURN CASE WHEN xchg THEN 'exchange' ELSE 'no exchange' END ||
         ', ' || diff || ' differences';
END $$;

-- The plan's nodes and pushdown lines.
CREATE FUNCTION xchg_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || replace(q, 'TBL', 'xchg_ft') LOOP
    IF ln ~ '^ *(->  )?(Limit|Finalize|Gather|Workers Planned|Parallel Foreign Scan|Foreign Scan|Aggregate Pushdown|Pushed Group Keys|Pushed Top-N|Exchange|Nested Loop|Function Scan|Sort)' THEN
      RETURN NEXT ln;
    END IF;
  END LOOP;
END $$;

-- parallel plans whatever their cost, and the exchange whenever parallel
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parquet_fdw.exchange_aggregate = force;

-- ===== the plans: Gather over the exchanging scan; with a pushed top-N,
-- Limit over Gather Merge, each participant's top offset + n rows
SELECT xchg_plan('SELECT g, count(*), sum(v) FROM TBL GROUP BY g');
SELECT xchg_plan('SELECT k, count(*) FROM TBL GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5 OFFSET 2');

-- ===== GROUP BY without top-N: int and text keys, NULL keys, many aggregates
SELECT xchg_same('SELECT g, count(*), count(f), sum(v), avg(v), sum(f), avg(f),
    min(k), max(d) FROM TBL GROUP BY g');
SELECT xchg_same('SELECT k, count(*), sum(v), max(f) FROM TBL GROUP BY k');
SELECT xchg_same('SELECT k, g % 7 AS m, count(*), sum(f) FROM TBL GROUP BY 1, 2');
SELECT xchg_same('SELECT d, count(*), min(v), max(v) FROM TBL GROUP BY d');
-- a computed key (PostgreSQL's expression, evaluated before the exchange)
SELECT xchg_same('SELECT extract(hour FROM ts)::int AS h, count(*), sum(v)
    FROM TBL GROUP BY 1');
SELECT xchg_same('SELECT length(k) AS n, count(*) FROM TBL GROUP BY 1');
-- filters, evaluated once before the exchange
SELECT xchg_same('SELECT g, count(*), sum(v) FROM TBL WHERE v > 500 AND k <> ''key 7''
    GROUP BY g');
SELECT xchg_same('SELECT k, count(*) FROM TBL WHERE k LIKE ''key 1%'' GROUP BY k');
-- no row passes (a filter the statistics cannot decide)
SELECT xchg_same('SELECT g, count(*) FROM TBL WHERE v + 1 = 0 GROUP BY g');
-- HAVING, on whole groups
SELECT xchg_same('SELECT g, count(*), sum(v) FROM TBL GROUP BY g HAVING sum(v) > 3000');
-- count(DISTINCT) per group
SELECT xchg_same('SELECT g % 100 AS m, count(DISTINCT v), count(DISTINCT k), count(*)
    FROM TBL GROUP BY 1');
SELECT xchg_same('SELECT k, count(DISTINCT v) FROM TBL WHERE v < 800 GROUP BY k');

-- ===== top-N: each participant's own top rows, merged and cut
SELECT xchg_same('SELECT k, count(*) FROM TBL GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5', true);
SELECT xchg_same('SELECT k, count(*) FROM TBL GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5 OFFSET 2', true);
SELECT xchg_same('SELECT g, sum(v) FROM TBL WHERE f > 10 GROUP BY g
    ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10', true);
SELECT xchg_same('SELECT g, count(DISTINCT v) AS u FROM TBL GROUP BY g
    ORDER BY u DESC, g NULLS FIRST LIMIT 7 OFFSET 3', true);
SELECT xchg_same('SELECT k, count(*) FROM TBL GROUP BY k HAVING count(*) > 9
    ORDER BY 1 LIMIT 4', true);

-- ===== partitions past work_mem spill again into private files
SET work_mem = '64kB';
SELECT xchg_same('SELECT i, count(*), sum(v) FROM TBL GROUP BY i');
SELECT xchg_same('SELECT k, count(DISTINCT v), sum(f) FROM TBL GROUP BY k');
SELECT xchg_same('SELECT i % 9000 AS m, count(*) FROM TBL GROUP BY 1
    ORDER BY 2 DESC, 1 LIMIT 6', true);
RESET work_mem;

-- ===== EXPLAIN ANALYZE: the rows exchanged, all participants' together
SELECT regexp_replace(l, ', [0-9.]+ MB', ', N MB')
FROM pf_plan_lines('SELECT g, count(*) FROM xchg_ft WHERE v >= 900 GROUP BY g',
                   'Exchange', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l;

-- ===== participants that never start, or a leader that does not take part
SET max_parallel_workers = 0;
SELECT xchg_same('SELECT k, count(*), sum(v) FROM TBL GROUP BY k');
SELECT xchg_same('SELECT k, count(*) FROM TBL GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5', true);
SET max_parallel_workers = 1;
SELECT xchg_same('SELECT g, count(DISTINCT v), sum(f) FROM TBL GROUP BY g');
RESET max_parallel_workers;
SET parallel_leader_participation = off;
SELECT xchg_same('SELECT g, count(*), sum(v) FROM TBL GROUP BY g');
SELECT xchg_same('SELECT k, sum(v) FROM TBL GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5', true);
RESET parallel_leader_participation;

-- ===== a rescan: the Gather inside a nested loop, run once per outer row
-- (new barrier, counters and file names each time)
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SET enable_memoize = off;
SELECT xchg_plan('SELECT s, t.c FROM generate_series(1, 3) s
    LEFT JOIN (SELECT g, count(*) AS c FROM TBL GROUP BY g) t ON t.g = s');
SELECT xchg_same('SELECT s, t.c, t.v FROM generate_series(0, 4) s
    LEFT JOIN (SELECT g, count(*) AS c, sum(v) AS v FROM TBL GROUP BY g) t
    ON t.g = s * 1000');
SELECT xchg_same('SELECT s, t.k, t.c FROM generate_series(1, 3) s
    LEFT JOIN (SELECT k, count(*) AS c FROM TBL GROUP BY k
               ORDER BY 2 DESC, 1 LIMIT 3) t ON length(t.k) > s', true);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET enable_memoize;

-- ===== an error in any participant, before or after the barrier, ends the
-- query (which participant raises it varies: only its message is shown)
DO $$
BEGIN
  PERFORM g, count(*) FROM xchg_ft GROUP BY g, 100 / (v - 500);
EXCEPTION WHEN division_by_zero THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END $$;
SELECT xchg_same('SELECT g, count(*) FROM TBL GROUP BY g');

-- ===== Amudai shards: the exchange sits above the table source
SELECT xchg_same('SELECT k, count(*), sum(v), avg(f) FROM TBL GROUP BY k', false, 'xchg_am');
SELECT xchg_same('SELECT g, count(DISTINCT v) FROM TBL GROUP BY g
    ORDER BY 2 DESC, 1 LIMIT 5', true, 'xchg_am');

-- ===== off: the other plans
SET parquet_fdw.exchange_aggregate = off;
SELECT xchg_same('SELECT g, count(*), sum(v) FROM TBL GROUP BY g');
RESET parquet_fdw.exchange_aggregate;

DROP FOREIGN TABLE xchg_ft;
DROP FOREIGN TABLE xchg_am;
DROP TABLE xchg_heap;
DROP SERVER xchg_srv;
DROP FUNCTION xchg_same(text, bool, text);
DROP FUNCTION xchg_plan(text);
