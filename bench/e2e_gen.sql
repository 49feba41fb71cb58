-- Deterministic data for the end-to-end benchmark (bench/run.sh), run by
-- bench/e2e.mjs in DuckDB.  The driver replaces {{N_T10M}}, {{N_ORDERS}} and
-- {{SEED}} before running it, then writes each table as CSV and as Parquet.
--
-- Every "random" value is hash(row, column, seed) with DuckDB's hash(), a pure
-- function of its arguments, so the same seed and DuckDB version give the
-- same rows, whatever the thread count.  Tables are sorted (t10m by a,
-- lineitem by l_orderkey, l_linenumber) and written with insertion order
-- preserved, so heap, CSV and Parquet hold the rows in the same order.

SET preserve_insertion_order = true;

-- h(row, column): a 64-bit unsigned pseudo-random value.
CREATE MACRO h(r, k) AS hash(r, k, {{SEED}});

-- t10m(a bigint, b int, c text, d float8, e date)
--   a: sorted, unique key (16 * row + 0..15), for the point lookup
--   b: uniform in [-1000000, 1000000]
--   c: one of 16 words, '-', a number below 1000 (16,000 distinct); 2% NULL
--   d: uniform in [0, 100000) with 3 decimals; 1% NULL
--   e: 2020-01-01 + 0..1999 days
CREATE TABLE t10m AS
SELECT (i * 16 + h(i, 0) % 16)::BIGINT AS a,
       ((h(i, 1) % 2000001)::BIGINT - 1000000)::INTEGER AS b,
       CASE WHEN h(i, 2) % 50 = 0 THEN NULL
            ELSE (['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot',
                   'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima',
                   'mike', 'november', 'oscar', 'papa'])[1 + (h(i, 3) % 16)::INTEGER]
                 || '-' || (h(i, 4) % 1000)::VARCHAR END AS c,
       CASE WHEN h(i, 5) % 100 = 0 THEN NULL
            ELSE (h(i, 6) % 100000000)::DOUBLE / 1000 END AS d,
       (DATE '2020-01-01' + (h(i, 7) % 2000)::INTEGER) AS e
FROM range({{N_T10M}}) r(i)
ORDER BY a;

-- lineitem, shaped like TPC-H's (dbgen's value ranges, simplified): orders
-- 1..N_ORDERS with TPC-H's sparse order keys, 1..7 lines each (4 on average:
-- 1.5M orders give about 6M lines, scale factor 1).
CREATE TABLE lineitem_base AS
SELECT o.i AS oi,
       ((o.i // 8) * 32 + o.i % 8 + 1)::BIGINT AS l_orderkey,
       (DATE '1992-01-01' + (h(o.i, 10) % 2406)::INTEGER) AS o_orderdate,
       unnest(range(1, 2 + (h(o.i, 11) % 7)::BIGINT)) AS ln
FROM range({{N_ORDERS}}) o(i);

CREATE TABLE lineitem_keys AS
SELECT l_orderkey, o_orderdate, ln::INTEGER AS l_linenumber,
       oi * 8 + ln AS r,                                        -- line's hash row
       (1 + h(oi * 8 + ln, 20) % ({{N_ORDERS}} * 2 // 15))::BIGINT AS l_partkey,
       (1 + h(oi * 8 + ln, 21) % greatest({{N_ORDERS}} // 150, 10))::BIGINT AS l_suppkey,
       (1 + h(oi * 8 + ln, 22) % 50)::INTEGER AS qty
FROM lineitem_base;

CREATE TABLE lineitem AS
WITH d AS (
    SELECT *,
           o_orderdate + (1 + h(r, 23) % 121)::INTEGER AS shipdate,
           o_orderdate + (30 + h(r, 24) % 61)::INTEGER AS commitdate
    FROM lineitem_keys
)
SELECT l_orderkey,
       l_partkey,
       l_suppkey,
       l_linenumber,
       qty::DECIMAL(15,2) AS l_quantity,
       -- TPC-H's retail price of the part, times the quantity
       (qty * (90000 + (l_partkey // 10) % 20001 + 100 * (l_partkey % 1000)) / 100)::DECIMAL(15,2)
           AS l_extendedprice,
       ((h(r, 25) % 11)::INTEGER / 100)::DECIMAL(15,2) AS l_discount,
       ((h(r, 26) % 9)::INTEGER / 100)::DECIMAL(15,2) AS l_tax,
       CASE WHEN shipdate + (1 + h(r, 27) % 30)::INTEGER <= DATE '1995-06-17'
            THEN (CASE WHEN h(r, 28) % 2 = 0 THEN 'R' ELSE 'A' END)
            ELSE 'N' END AS l_returnflag,
       CASE WHEN shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
       shipdate AS l_shipdate,
       commitdate AS l_commitdate,
       shipdate + (1 + h(r, 27) % 30)::INTEGER AS l_receiptdate,
       (['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])
           [1 + (h(r, 29) % 4)::INTEGER] AS l_shipinstruct,
       (['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])
           [1 + (h(r, 30) % 7)::INTEGER] AS l_shipmode,
       -- 10..43 characters of words, like dbgen's comment text
       left(list_aggregate(list_transform(range(6), k ->
                (['carefully', 'final', 'deposits', 'sleep', 'quickly', 'ironic',
                  'requests', 'among', 'the', 'furiously', 'regular', 'accounts',
                  'boost', 'blithely', 'pending', 'packages', 'haggle', 'slyly',
                  'express', 'foxes', 'above', 'bold', 'theodolites', 'wake',
                  'instructions', 'along', 'fluffily', 'even', 'pinto', 'beans',
                  'special', 'dolphins'])[1 + (h(r * 8 + k, 31) % 32)::INTEGER]),
                'string_agg', ' '),
            (10 + h(r, 32) % 34)::INTEGER) AS l_comment
FROM d
ORDER BY l_orderkey, l_linenumber;

DROP TABLE lineitem_keys;
DROP TABLE lineitem_base;
