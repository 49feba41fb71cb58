#!/usr/bin/env python3
"""Random qual trees over an Amudai shard and a heap table of the same rows:
a differential check of the shard pruning (stripe statistics, Bloom
filters, range indexes in src/fdw/source_amudai.c, through the qual
analyzer src/fdw/qual.c) beyond sql/qual_amudai.sql's fixed forms.

    python3 test/qual_fuzz.py SEED [COUNT] | psql -X -q -A -t

against a server with parquet_fdw installed (e.g. scripts/lib/pgcluster.sh's
pg_cluster_start), as a superuser (the shard is written in the data
directory).  Every output line is "0 differences" when the shard and the
heap agree on the count and sum of the matching rows, read both through
the plain scan (late quals) and through an aggregate (pushdown when it
applies); any other line (a difference, an ERROR) names the failing query.
"""
import random
import sys

SETUP = r"""
CREATE TABLE qf_heap AS
SELECT k,
       CASE WHEN k % 17 = 0 THEN NULL ELSE k / 3 END AS i,
       (k * 7919) % 1000 - 500 AS g,
       CASE WHEN k % 83 = 0 THEN NULL
            WHEN k % 97 = 0 THEN 'NaN'::float8
            WHEN k % 89 = 0 THEN '-0'::float8
            ELSE (k - 4000) / 10.0 END AS f,
       CASE WHEN k % 101 = 0 THEN NULL
            ELSE chr(97 + (k / 1000)) || CASE WHEN k % 2 = 0 THEN 'B' ELSE 'b' END
                 || lpad((k % 37)::text, 2, '0') END AS s,
       timestamptz '2024-01-01 00:00+00' + k * interval '37 minutes' AS t
  FROM generate_series(1, 8000) k;
SELECT current_setting('data_directory') || '/pf_qual_fuzz.amudai.shard' AS qf_shard \gset
CREATE SERVER qf_srv FOREIGN DATA WRAPPER parquet_fdw;
SELECT parquet_fdw_write_amudai('SELECT * FROM qf_heap ORDER BY k', :'qf_shard', 1000) AS qf_rows \gset
CREATE FOREIGN TABLE qf (k int, i int, g bigint, f float8, s text, t timestamptz)
  SERVER qf_srv OPTIONS (filename :'qf_shard');

-- count and sum of k of the rows matching cond, on the shard (scan and
-- aggregate) and on the heap: the number of forms that differ
CREATE FUNCTION qf_same(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE h text; a text; b text;
BEGIN
  EXECUTE 'SELECT count(*) || ''/'' || coalesce(sum(k), 0) FROM qf_heap WHERE ' || cond INTO h;
  EXECUTE 'SELECT count(*) || ''/'' || coalesce(sum(k), 0) FROM qf WHERE ' || cond INTO a;
  EXECUTE 'SELECT count(*) || ''/'' || coalesce(sum(k), 0) FROM (SELECT k FROM qf WHERE '
          || cond || ' OFFSET 0) s' INTO b;
  RETURN ((a <> h)::int + (b <> h)::int) || ' differences'
         || CASE WHEN a = h AND b = h THEN '' ELSE format(' (heap %s, aggregate %s, scan %s)', h, a, b) END;
END $$;
"""

INTS = ['-1', '0', '1', '999', '1000', '1000.5', '1333.5', "'NaN'::numeric", '2666',
        '2667.0', '1e30', '-1e30', '2.5::float8', "'-0'::float8", "'NaN'::float8",
        "'Infinity'::float8"]
GS = ['-500', '-499.5', '0', '0.0', '250', '499', '500', '1e9', "'NaN'::float8"]
FLOATS = ["'NaN'", "'-0'", '0', '-400', '-399.9', '0.05', '399.9', '400', "'Infinity'",
          "'-Infinity'", "'NaN'::numeric", '12.5::numeric', '-0.5::float4']
TEXTS = ["'a'", "'aB'", "'ab'", "'aB05'", "'ab05'", "'b'", "'B'", "'cb36'", "'d'", "'h'",
         "'e'", "'aB05 '::bpchar", "'ab05'::varchar", "''"]
COLLS = ['', ' COLLATE "C"', ' COLLATE "en-x-icu"', ' COLLATE "C.utf8"']
LIKES = ["'a%'", "'aB%'", "'ab0%'", "'cB1_'", "'b\\_%'", "'%05'", "'hb%'", "'B%'"]
TIMES = ["timestamp '2024-01-03 12:00'", "timestamp '2024-01-03 12:00:00.000001'",
         "date '2024-01-10'", "date '2024-02-01'", "timestamptz '2024-01-10 00:00+00'",
         "timestamptz '2024-03-15 07:00+09'", "timestamp 'infinity'", "date '-infinity'",
         "now()", "current_date - 800"]
TZS = ['UTC', 'Asia/Tokyo', 'America/Los_Angeles']
OPS = ['<', '<=', '=', '<>', '>', '>=']


def scalar(rnd):
    col = rnd.choice(['k', 'i', 'g', 'f', 'f', 's', 's', 't'])
    vals = {'k': INTS, 'i': INTS, 'g': GS, 'f': FLOATS, 's': TEXTS, 't': TIMES}[col]
    lhs = col + (rnd.choice(COLLS) if col == 's' else '')
    r = rnd.random()
    if r < 0.08:
        return f"{col} IS {rnd.choice(['', 'NOT '])}NULL"
    if r < 0.22:
        elems = rnd.sample(vals, rnd.randint(1, 3))
        if rnd.random() < 0.4:
            elems.append('NULL')
        return f"{lhs} {rnd.choice(['IN', 'NOT IN'])} ({', '.join(elems)})"
    if r < 0.32:
        a, b = rnd.sample(vals, 2)
        return f"{lhs} {rnd.choice(['', 'NOT '])}BETWEEN {a} AND {b}"
    if col == 's' and r < 0.45:
        return f"{lhs} {rnd.choice(['LIKE', 'LIKE', 'NOT LIKE'])} {rnd.choice(LIKES)}"
    v = rnd.choice(vals)
    if rnd.random() < 0.15:
        return f"{v} {rnd.choice(OPS)} {lhs}"
    return f"{lhs} {rnd.choice(OPS)} {v}"


def tree(rnd, depth):
    r = rnd.random()
    if depth <= 0 or r < 0.45:
        return scalar(rnd)
    if r < 0.55:
        return f"NOT ({tree(rnd, depth - 1)})"
    op = rnd.choice([' AND ', ' OR '])
    return '(' + op.join(tree(rnd, depth - 1) for _ in range(rnd.randint(2, 3))) + ')'


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(seed)
    print("SET client_min_messages = warning;")
    print("CREATE EXTENSION IF NOT EXISTS parquet_fdw;")
    print("DROP SERVER IF EXISTS qf_srv CASCADE;")
    print("DROP TABLE IF EXISTS qf_heap;")
    print("DROP FUNCTION IF EXISTS qf_same(text);")
    print("SET datestyle = 'ISO, YMD';")
    print("SET extra_float_digits = 0;")
    print("SET timezone = 'UTC';")
    print(SETUP)
    for _ in range(count):
        cond = tree(rnd, 3)
        print(f"SET timezone = '{rnd.choice(TZS)}';")
        print(f"SELECT r || CASE WHEN r = '0 differences' THEN '' ELSE ' | ' || $q${cond}$q$ END "
              f"FROM qf_same($q${cond}$q$) r;")
    print("DROP SERVER qf_srv CASCADE;")
    print("DROP TABLE qf_heap;")
    print("DROP FUNCTION qf_same(text);")


if __name__ == '__main__':
    main()
