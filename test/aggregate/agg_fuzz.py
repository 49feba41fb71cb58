#!/usr/bin/env python3
"""Random aggregate queries over test/data/aggregate/, each run with pushdown on
and off (agg_same() of sql/aggregate.sql): a check of the aggregate pushdown
(src/fdw/agg_*.c) beyond the regression test's fixed queries.

    python3 test/aggregate/agg_fuzz.py SEED [COUNT] [shard] | psql -X -q -A -t

With "shard", every query reads instead an Amudai shard written from the
rows of aggregate.parquet (its "wide" divided by 10^4: an Amudai decimal
holds 34 digits at most), in stripes of 2048 rows.

against a server with parquet_fdw installed (e.g. scripts/lib/pgcluster.sh's
pg_cluster_start).  Every output line is "pushed, 0 differences" or "not
pushed, 0 differences" when the results agree; any other line (a
difference, an ERROR) names the failing query.  Queries have no ORDER BY:
without it PostgreSQL groups by hash, adding floats in scan order as the
pushdown does (agg_same() compares rows as sets).
"""
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SETUP = r"""
CREATE SERVER agg_srv FOREIGN DATA WRAPPER parquet_fdw;
CREATE FOREIGN TABLE agg (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_srv OPTIONS (filename :'agg');
CREATE FOREIGN TABLE aggplain (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_srv OPTIONS (filename :'aggplain');
CREATE FOREIGN TABLE rg (id bigint, grp int, n int, d date, ts timestamp,
                         f float8, s text)
  SERVER agg_srv OPTIONS (filename :'rg');

-- Run query q with pushdown on and off: 'pushed' or 'not pushed', and the
-- number of rows that differ (as text) between the two results.  Sorts
-- are discouraged: float sums depend on the order of the additions, and a
-- hash aggregate adds in scan order, as the pushdown does, where a sort
-- (not stable) may reorder the rows of a group.
CREATE FUNCTION agg_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pushed boolean := false;
  ln text;
  diff bigint;
BEGIN
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  PERFORM set_config('enable_sort', 'off', true);
  FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF ln ~ 'Aggregate Pushdown' THEN pushed := true; END IF;
  END LOOP;
  EXECUTE 'CREATE TEMP TABLE r_on AS SELECT row_number() OVER () AS rn, t::text AS v FROM (' || q || ') t';
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'off', true);
  EXECUTE 'CREATE TEMP TABLE r_off AS SELECT row_number() OVER () AS rn, t::text AS v FROM (' || q || ') t';
  PERFORM set_config('enable_sort', 'on', true);
  PERFORM set_config('parquet_fdw.enable_aggregate_pushdown', 'on', true);
  SELECT count(*) INTO diff FROM
    ((SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off)
     UNION ALL (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on)) d;
  DROP TABLE r_on;
  DROP TABLE r_off;
  RETURN CASE WHEN pushed THEN 'pushed' ELSE 'not pushed' END ||
         ', ' || diff || ' differences';
END $$;

-- EXPLAIN with paths reduced to file names, without memory sizes
CREATE FUNCTION agg_explain(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE ln text;
BEGIN
  FOR ln IN EXECUTE query LOOP
    CONTINUE WHEN ln ~ 'Peak Memory';
    ln := regexp_replace(ln, 'Partition Passes: [0-9]+', 'Partition Passes: several');
    RETURN NEXT regexp_replace(ln, '/[^ ,"]*/', '', 'g');
  END LOOP;
END $$;

"""

COLS_NUM = ['l_quantity', 'l_extendedprice', 'l_discount', 'l_tax', 'q2', 'wide',
            'i2', 'i4', 'i8', 'f4', 'f8', 'fn']
DEC = ['l_quantity', 'l_extendedprice', 'l_discount', 'l_tax', 'q2']
KEYS = ['l_returnflag', 'l_linestatus', 'l_shipdate', 'i2', 'b']
FILTERS = [('l_quantity', ['10', '24.5', '1', '50']), ('l_discount', ['0.05', '0.055', '0']),
           ('l_shipdate', ["'1994-01-01'", "'1998-09-02'"]),
           ('i4', ['0', '-100000', '3000000']), ('i2', ['0', '-15000', '14999']),
           ('f8', ['100.5', '0', '1199.9']), ('fn', ["'NaN'", '100', "'-inf'"]),
           ('l_returnflag', ["'A'", "'N'"]), ('q2', ['-3.333', '0', '9.99']),
           ('wide', ['5000000000000000000000000000000000', '0.5']),
           ('l_orderkey', ['6000', '0'])]
OPS = ['<', '<=', '=', '<>', '>', '>=']


def expr(rnd):
    r = rnd.random()
    if r < 0.4:
        return rnd.choice(COLS_NUM)
    if r < 0.7:
        a, b = rnd.sample(DEC + ['wide'], 2)
        return f"{a} {rnd.choice(['+', '-', '*'])} {b}"
    if r < 0.8:
        return f"{rnd.choice(DEC)} * (1 - {rnd.choice(DEC)})"
    if r < 0.9:
        a, b = rnd.sample(['i2', 'i4'], 2)
        return f"{a} {rnd.choice(['+', '-'])} {b}"
    return f"f8 {rnd.choice(['+', '-', '*'])} f4"


def agg(rnd):
    f = rnd.choice(['sum', 'avg', 'min', 'max', 'count', 'count*'])
    if f == 'count*':
        return 'count(*)'
    if f in ('min', 'max'):
        return f"{f}({rnd.choice(COLS_NUM + ['l_shipdate'])})"
    return f"{f}({expr(rnd)})"


def query(rnd):
    keys = rnd.sample(KEYS, rnd.choice([0, 0, 1, 1, 2, 3]))
    aggs = [agg(rnd) for _ in range(rnd.randint(1, 4))]
    filters = []
    for _ in range(rnd.choice([0, 1, 1, 2, 3])):
        col, vals = rnd.choice(FILTERS)
        r = rnd.random()
        if r < 0.15:
            filters.append(f"{col} IS {rnd.choice(['', 'NOT '])}NULL")
        elif r < 0.3:
            filters.append(f"{col} IN ({', '.join(rnd.sample(vals, min(len(vals), 2)))})")
        else:
            filters.append(f"{col} {rnd.choice(OPS)} {rnd.choice(vals)}")
    q = f"SELECT {', '.join(keys + aggs)} FROM {rnd.choice(['agg', 'aggplain'])}"
    if filters:
        q += " WHERE " + " AND ".join(filters)
    if keys:
        q += " GROUP BY " + ", ".join(keys)
    return q


SHARD_SETUP = r"""
SELECT current_setting('data_directory') || '/pf_agg_fuzz.amudai.shard' AS shard
\gset
SELECT parquet_fdw_write_amudai('SELECT l_orderkey, l_quantity, l_extendedprice,
    l_discount, l_tax, l_returnflag, l_linestatus, l_shipdate, q2,
    (wide / 10000)::numeric(38,4) AS wide, i2, i4, i8, f4, f8, fn, b FROM agg', :'shard', 2048) AS written
\gset
CREATE FOREIGN TABLE aggam (
    l_orderkey bigint, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
    l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
    l_linestatus text, l_shipdate date, q2 numeric(9,2), wide numeric(38,4),
    i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, fn float8, b boolean)
  SERVER agg_srv OPTIONS (filename :'shard');
"""


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    shard = len(sys.argv) > 3 and sys.argv[3] == 'shard'
    rnd = random.Random(seed)
    print("SET client_min_messages = warning;")
    print("CREATE EXTENSION IF NOT EXISTS parquet_fdw;")
    print("DROP SERVER IF EXISTS agg_srv CASCADE;")
    print("DROP FUNCTION IF EXISTS agg_same(text);")
    print("DROP FUNCTION IF EXISTS agg_explain(text);")
    print(f"\\set abs_srcdir '{ROOT}'")
    print("\\set agg :abs_srcdir '/test/data/aggregate/aggregate.parquet'")
    print("\\set aggplain :abs_srcdir '/test/data/aggregate/aggregate_plain.parquet'")
    print("\\set rg :abs_srcdir '/test/data/scan/rowgroups.parquet'")
    # compare as sets: the queries have no ORDER BY
    print(SETUP.replace("row_number() OVER () AS rn", "1 AS rn"))
    if shard:
        print(SHARD_SETUP)
    for _ in range(count):
        q = query(rnd)
        if shard:
            q = re.sub(r" FROM agg(plain)?\b", " FROM aggam", q)
        print(f"SELECT r || CASE WHEN r ~ ' 0 differences' THEN '' ELSE ' | ' || $q${q}$q$ END "
              f"FROM agg_same($q${q}$q$) r;")


if __name__ == '__main__':
    main()
