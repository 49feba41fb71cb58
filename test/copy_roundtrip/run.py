#!/usr/bin/env python3
"""Round trip of the conformance corpus through COPY TO parquet.

For every Parquet file under the corpus's data/ and shredded_variant/
(bad_data/ is for errors, not values):

  * a foreign table over it, its columns inferred by
    parquet_create_foreign_table(); a file that does not read today
    (creating the table or reading every row as text fails) is SKIPPED,
  * COPY (SELECT * FROM it) TO a file in the data directory
    (FORMAT parquet); a column type the writer refuses
    (ERRCODE_FEATURE_NOT_SUPPORTED) is SKIPPED with the type named,
  * a foreign table with the same columns over the written file,
  * the two compared row for row, EXCEPT ALL both ways (as typed rows, or
    as their text when a type has no equality): both must be empty.

  run.py --corpus DIR [--only SUBSTR]...

Connection: the usual libpq environment.  Prints PASS/SKIP/FAIL per file,
the skipped types, and ends with "copy-roundtrip: N passed, N failed";
exit status 1 if anything failed.
"""

import argparse
import os
import subprocess
import sys

SERVER = "pf_roundtrip_srv"
TIMEOUT_S = 180
CRASH_MARKERS = (
    "server closed the connection unexpectedly",
    "terminating connection because of crash",
    "connection to server was lost",
    "no connection to the server",
)


def psql(script):
    """(ok, stdout, stderr) of a psql -X run stopping at the first error."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
           "-v", "VERBOSITY=verbose"]
    try:
        p = subprocess.run(cmd, input=script.encode("utf-8"), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, "", "timeout after %d s" % TIMEOUT_S
    return (p.returncode == 0, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def first_error(stderr):
    for line in stderr.splitlines():
        if line.startswith("ERROR:") or line.startswith("psql:"):
            return line.strip()[:300]
    return stderr.strip()[:300]


def files(corpus, only):
    out = []
    for area in ("data", "shredded_variant"):
        root = os.path.join(corpus, area)
        for dirpath, _, names in os.walk(root):
            for n in names:
                if n.endswith(".parquet"):
                    path = os.path.join(dirpath, n)
                    rel = os.path.relpath(path, corpus)
                    if not only or any(o in rel for o in only):
                        out.append((rel, path))
    return sorted(out)


SETUP = """
SET client_min_messages = warning;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET intervalstyle = 'iso_8601';
LOAD 'parquet_fdw';
DROP FOREIGN TABLE IF EXISTS rt_src, rt_dst;
"""


def roundtrip(path, out_file):
    """('pass'|'skip'|'fail', reason)."""
    ok, _, err = psql(SETUP + """
SELECT parquet_create_foreign_table('rt_src', %s, %s);
SELECT sum(length(ROW(x.*)::text)) FROM rt_src x;
""" % (lit(SERVER), lit(path)))
    if not ok:
        if any(m in err for m in CRASH_MARKERS):
            return "fail", "crash reading: " + first_error(err)
        return "skip", "does not read today: " + first_error(err)

    ok, _, err = psql(SETUP + """
SELECT parquet_create_foreign_table('rt_src', %s, %s);
COPY (SELECT * FROM rt_src) TO %s (FORMAT parquet);
""" % (lit(SERVER), lit(path), lit(out_file)))
    if not ok:
        if "ERROR:  0A000:" in err:
            return "skip", "writer refuses: " + first_error(err)
        return "fail", "COPY TO: " + first_error(err)

    create_dst = """
SELECT parquet_create_foreign_table('rt_src', %s, %s);
SELECT format('CREATE FOREIGN TABLE rt_dst (%%s) SERVER %s OPTIONS (filename %%L)',
              string_agg(format('%%I %%s', attname, format_type(atttypid, atttypmod)),
                         ', ' ORDER BY attnum), %s)
  FROM pg_attribute
 WHERE attrelid = 'rt_src'::regclass AND attnum > 0 AND NOT attisdropped
\\gexec
""" % (lit(SERVER), lit(path), SERVER, lit(out_file))
    # typed rows where every type has equality (numeric 1 = 1.000), else
    # their text
    compare = """
SELECT 'missing=' || (SELECT count(*) FROM (SELECT %(row)s FROM rt_src x
                        EXCEPT ALL SELECT %(row)s FROM rt_dst x) y)
    || ' extra=' || (SELECT count(*) FROM (SELECT %(row)s FROM rt_dst x
                        EXCEPT ALL SELECT %(row)s FROM rt_src x) y)
    || ' rows=' || (SELECT count(*) FROM rt_dst);
"""
    ok, out, err = psql(SETUP + create_dst + compare % {"row": "x.*"})
    if not ok and "42883" in err:
        ok, out, err = psql(SETUP + create_dst + compare % {"row": "ROW(x.*)::text"})
    if not ok:
        return "fail", "read back: " + first_error(err)
    result = out.strip().splitlines()[-1] if out.strip() else ""
    if not result.startswith("missing=0 extra=0 "):
        return "fail", "differs: " + result
    return "pass", result.split(" ")[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()

    ok, out, err = psql("""
SET client_min_messages = warning;
DROP SERVER IF EXISTS %s CASCADE;
CREATE SERVER %s FOREIGN DATA WRAPPER parquet_fdw;
SELECT current_setting('data_directory') || '/pf_roundtrip.parquet';
""" % (SERVER, SERVER))
    if not ok:
        print("copy-roundtrip: setup failed: " + first_error(err))
        print("copy-roundtrip: 0 passed, 1 failed")
        return 1
    out_file = out.strip().splitlines()[-1]

    passed = failed = skipped = 0
    refused = {}
    for rel, path in files(args.corpus, args.only):
        status, reason = roundtrip(path, out_file)
        print("%s %s: %s" % (status.upper(), rel, reason))
        if status == "pass":
            passed += 1
        elif status == "skip":
            skipped += 1
            if reason.startswith("writer refuses"):
                refused[reason] = refused.get(reason, 0) + 1
        else:
            failed += 1
    psql("DROP SERVER IF EXISTS %s CASCADE;" % SERVER)
    if refused:
        print("copy-roundtrip: what the writer refuses (files):")
        for reason, n in sorted(refused.items()):
            print("  %d  %s" % (n, reason))
    print("copy-roundtrip: %d skipped (%d: the writer refuses a type)"
          % (skipped, sum(refused.values())))
    print("copy-roundtrip: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
