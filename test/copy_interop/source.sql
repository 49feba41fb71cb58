-- The table every reader is checked against (test/copy_interop/run.sh).
CREATE TYPE interop_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE interop_pt AS (x int, label text, tags text[]);
CREATE TABLE interop (
    id int, b bool, i2 int2, i4 int, i8 int8, f4 float4, f8 float8,
    n9 numeric(9,2), n18 numeric(18,4), n38 numeric(38,3), t text, by bytea,
    d date, tm time, ts timestamp, tstz timestamptz, iv interval, u uuid,
    jb jsonb, mood interop_mood, ai int[], at text[],
    st interop_pt, m int[][], ap interop_pt[]);
INSERT INTO interop
SELECT i,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 30000 - 15000)::int2 END,
       CASE WHEN i % 7 = 2 THEN NULL ELSE i * 1000 - 500000 END,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::int8 * 1000000007 - 4000000000 END,
       CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 8.0 - 100)::float4 END,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 16.0 - 7 END,
       CASE WHEN i % 7 = 6 THEN NULL ELSE i * 1.25 - 300 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i * 12345.6789 - 99999 END,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i - 2000)::numeric * 10 ^ 25 + 0.123 END,
       CASE WHEN i % 7 = 3 THEN NULL ELSE 'text ' || i || repeat('é', i % 5) END,
       CASE WHEN i % 7 = 6 THEN NULL ELSE decode(lpad(to_hex(i), 6, '0'), 'hex') END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE date '2000-01-01' + (i * 37 - 20000) END,
       CASE WHEN i % 7 = 1 THEN NULL ELSE time '00:00' + i * interval '17.123456 s' END,
       CASE WHEN i % 7 = 3 THEN NULL ELSE timestamp '1960-01-01' + i * interval '1 day 1.000001 s' END,
       CASE WHEN i % 7 = 4 THEN NULL ELSE timestamptz '2020-02-29 12:00+00' - i * interval '1 hour 0.5 s' END,
       CASE WHEN i % 7 = 5 THEN NULL ELSE make_interval(months => i % 13, days => i % 40, secs => i * 1.5) END,
       CASE WHEN i % 7 = 6 THEN NULL ELSE md5(i::text)::uuid END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE ('{"k": ' || i || ', "a": [1, "x"]}')::jsonb END,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::interop_mood END,
       CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '{}'::int[] ELSE ARRAY[i, NULL, i + 1] END,
       CASE WHEN i % 6 = 0 THEN NULL ELSE ARRAY['a' || i, NULL, ''] END,
       -- STRUCT: NULL, all fields NULL, a list field NULL / empty / with NULL
       CASE WHEN i % 9 = 0 THEN NULL WHEN i % 9 = 1 THEN ROW(NULL, NULL, NULL)::interop_pt
            ELSE ROW(i, 'p' || i, CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN '{}'
                                             ELSE ARRAY['t' || i, NULL] END)::interop_pt END,
       -- list<list<int>>: two dimensions of varying shape
       CASE WHEN i % 8 = 0 THEN NULL WHEN i % 8 = 1 THEN '{}'::int[]
            WHEN i % 2 = 0 THEN ARRAY[[i, NULL], [i + 1, i + 2]]
            ELSE ARRAY[[i], [i + 1], [i + 2]] END,
       -- list<struct>: NULL, empty, a NULL element, structs with lists
       CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN '{}'::interop_pt[]
            WHEN i % 10 = 2 THEN ARRAY[NULL::interop_pt]
            ELSE ARRAY[ROW(i, NULL, '{}')::interop_pt, ROW(NULL, 'q' || i, ARRAY['z'])::interop_pt] END
  FROM generate_series(1, 3000) i;

-- Every value in a form each reader's value can be turned into exactly:
-- 64-bit integers and decimals as text, bytes as hex, times as
-- microseconds since midnight / the Unix epoch, intervals as
-- "months,days,milliseconds".
CREATE VIEW interop_canonical AS
SELECT id, b, i2, i4, i8::text AS i8, f4::float8 AS f4, f8, n9::text AS n9,
       n18::text AS n18, n38::text AS n38, t, encode(by, 'hex') AS by, d::text AS d,
       (extract(epoch FROM tm) * 1000000)::bigint::text AS tm,
       (extract(epoch FROM ts) * 1000000)::bigint::text AS ts,
       (extract(epoch FROM tstz) * 1000000)::bigint::text AS tstz,
       ((extract(year FROM iv) * 12 + extract(month FROM iv))::int || ',' ||
        extract(day FROM iv)::int || ',' ||
        (extract(epoch FROM iv - date_trunc('day', iv)) * 1000)::bigint) AS iv,
       u::text AS u, jb::text AS jb, mood::text AS mood, ai, at, st, m, ap
  FROM interop;
