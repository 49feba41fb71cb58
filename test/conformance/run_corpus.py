#!/usr/bin/env python3
"""Corpus conformance harness for parquet_fdw.

For every Parquet file under the corpus's data/ (recursive),
shredded_variant/ and bad_data/:

  * create a foreign table with parquet_create_foreign_table(),
  * COPY (SELECT * FROM t) TO STDOUT (FORMAT csv, HEADER) with TimeZone UTC,
  * compare value by value with FILE.expected.csv (DuckDB's rendering),
    type-aware by the column's PostgreSQL type (see normalize.py).

bad_data/ files must fail with an ERROR (never crash the backend; the server
is checked with SELECT 1 after each file); files without an expected CSV and
files whose expected CSV the MANIFEST notes call wrong are judged by
expectations.py.  A file with neither an expected CSV nor an entry there
FAILS ("new file without a test").

  run_corpus.py [--corpus DIR] [--manifest FILE] [--only SUBSTR]...
  run_corpus.py --dir DIR        # any folder of *.parquet + *.expected.csv pairs

Connection: the usual libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE).
Prints one line per file (PASS/FAIL + reason) and ends with
"conformance: N passed, N failed"; exit status 1 if anything failed.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)

import normalize as nz  # noqa: E402
from expectations import EXPECT  # noqa: E402

TABLE = "pf_conformance_t"
SERVER = "pf_conformance_srv"
STMT_TIMEOUT_MS = 120000
FILE_TIMEOUT_S = 180
MAX_REASON = 300
# Corpus areas whose decoding is not implemented yet.  Their files still run
# (a crash or hang always fails); a wrong result is reported as XFAIL with the
# reason, counted apart, and a file that starts passing counts as passed.
KNOWN_GAPS = {
}

CRASH_MARKERS = (
    "server closed the connection unexpectedly",
    "terminating connection because of crash",
    "connection to server was lost",
    "no connection to the server",
    "could not connect to server",
    "connection to server on socket",
)


def sql_lit(s):
    return "'" + s.replace("'", "''") + "'"


def psql(script, timeout=FILE_TIMEOUT_S):
    """Run a psql script; returns (rc, stdout, stderr, timed_out)."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
           "-P", "pager=off", "-f", "-"]
    env = dict(os.environ)
    env["PGOPTIONS"] = (env.get("PGOPTIONS", "") +
                        " -c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=postgres"
                        " -c extra_float_digits=1 -c bytea_output=hex -c client_min_messages=warning"
                        " -c statement_timeout=%d" % STMT_TIMEOUT_MS).strip()
    env.setdefault("PGCLIENTENCODING", "UTF8")
    try:
        p = subprocess.run(cmd, input=script.encode("utf-8"), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return (-1, (e.stdout or b"").decode("utf-8", "replace"),
                (e.stderr or b"").decode("utf-8", "replace"), True)
    return (p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), False)


def server_alive(wait_s=30):
    deadline = time.time() + wait_s
    while True:
        rc, out, _, _ = psql("SELECT 1;", timeout=15)
        if rc == 0 and out.strip() == "1":
            return True
        if time.time() > deadline:
            return False
        time.sleep(1)


def sqlstate_of(stderr):
    m = re.search(r"ERROR:\s+([0-9A-Z]{5}):", stderr)
    return m.group(1) if m else None


def first_error_line(stderr):
    for line in stderr.splitlines():
        if "ERROR:" in line or "FATAL:" in line or "PANIC:" in line:
            return re.sub(r"^psql:<stdin>:\d+:\s*", "", line.strip())
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


class Outcome:
    """What reading one file produced."""

    def __init__(self):
        self.error = None       # first error line, if the read failed
        self.sqlstate = None
        self.crashed = False
        self.timed_out = False
        self.columns = []       # [(name, pgtype, elemtype or None)]
        self.rows = None        # list of rows of Cells (no header)
        self.header = None


def read_file(path):
    """Create the foreign table over `path` and COPY it out."""
    o = Outcome()
    setup = ("DROP FOREIGN TABLE IF EXISTS %s;\n" % TABLE +
             "SELECT parquet_create_foreign_table(%s, %s, %s) IS NULL;\n" % (
                 sql_lit(TABLE), sql_lit(SERVER), sql_lit(path)) +
             "\\echo @@COLUMNS\n" +
             "SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod),"
             " CASE WHEN t.typcategory = 'A' THEN format_type(t.typelem, a.atttypmod) END)"
             " ORDER BY a.attnum) FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
             " WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped;\n" % sql_lit(TABLE) +
             "\\echo @@DATA\n" +
             "COPY (SELECT * FROM %s) TO STDOUT (FORMAT csv, HEADER);\n" % TABLE)
    rc, out, err, to = psql(setup)
    if to:
        o.timed_out = True
        o.error = "timed out after %ds" % FILE_TIMEOUT_S
        return o
    if any(m in err for m in CRASH_MARKERS):
        o.crashed = True
        o.error = "server crashed: " + first_error_line(err)
        return o
    if rc != 0:
        o.error = first_error_line(err)
        o.sqlstate = sqlstate_of(err)
        return o
    try:
        cols_part = out.split("@@COLUMNS\n", 1)[1]
        cols_json, data = cols_part.split("@@DATA\n", 1)
        cols = json.loads(cols_json.strip())
    except (IndexError, ValueError) as e:
        o.error = "harness: unexpected psql output (%s)" % e
        return o
    o.columns = [(c[0], c[1], c[2]) for c in cols]
    rows = nz.parse_csv(data)
    if not rows:
        o.error = "harness: COPY produced no header"
        return o
    o.header = [c.text for c in rows[0]]
    o.rows = rows[1:]
    return o


def load_expected_csv(path, overrides=None):
    with open(path, "r", encoding="utf-8", newline="") as f:
        data = f.read()
    rows = nz.parse_csv(data)
    if not rows:
        return [], []
    header = [c.text for c in rows[0]]
    body = rows[1:]
    if overrides:
        for (ri, col), val in overrides.items():
            ci = header.index(col)
            body[ri][ci] = nz.Cell("", False) if val is None else nz.Cell(val, True)
    return header, body


def short(s, n=80):
    s = repr(s)
    return s if len(s) <= n else s[: n - 3] + "..."


def compare_rows(o, header, body, blob_cols=(), geo_cols=()):
    """None if o's rows equal the expected (header, body), else a reason."""
    ours_names = [c[0] for c in o.columns]
    if o.header != header:
        if len(o.header) != len(header):
            return "column count %d vs expected %d (ours %s, theirs %s)" % (
                len(o.header), len(header), short(o.header, 120), short(header, 120))
        diffs = [(a, b) for a, b in zip(o.header, header) if a != b]
        return "column names differ: %s" % short(diffs, 160)
    if ours_names != o.header:
        return "harness: catalog columns %s != COPY header %s" % (ours_names, o.header)
    nrows = min(len(o.rows), len(body))
    for r in range(nrows):
        ro, rt = o.rows[r], body[r]
        if len(ro) != len(o.header) or len(rt) != len(header):
            return "row %d: malformed CSV row (%d/%d fields)" % (r + 1, len(ro), len(rt))
        for ci, (name, pgtype, elemtype) in enumerate(o.columns):
            why = nz.compare_cell(pgtype, elemtype, ro[ci], rt[ci], duck_blob=name in blob_cols,
                                  geo=name in geo_cols)
            if why:
                return "row %d, column %s (%s): ours %s, theirs %s [%s]" % (
                    r + 1, name, pgtype, short(ro[ci]), short(rt[ci]), why)
    if len(o.rows) != len(body):
        return "row count %d vs expected %d" % (len(o.rows), len(body))
    return None


def compare_python_rows(o, rows):
    """Compare with expectations.py 'rows' (text values; objects for json)."""
    if len(o.rows) != len(rows):
        return "row count %d vs expected %d" % (len(o.rows), len(rows))
    names = [c[0] for c in o.columns]
    for r, exp in enumerate(rows):
        for col, val in exp.items():
            if col not in names:
                return "column %s missing (have %s)" % (col, names)
            ci = names.index(col)
            _, pgtype, elemtype = o.columns[ci]
            cell = o.rows[r][ci]
            if val is None:
                if not cell.is_null:
                    return "row %d, column %s: ours %s, expected NULL" % (r + 1, col, short(cell))
                continue
            if cell.is_null:
                return "row %d, column %s: ours NULL, expected %s" % (r + 1, col, short(val))
            bt = nz.base_type(pgtype)
            if bt in ("json", "jsonb"):
                try:
                    got = json.loads(cell.text)
                except ValueError:
                    return "row %d, column %s: ours is not JSON: %s" % (r + 1, col, short(cell.text))
                if not nz._json_equal(got, val):
                    return "row %d, column %s: ours %s, expected %s" % (
                        r + 1, col, short(cell.text), short(json.dumps(val)))
                continue
            if not isinstance(val, str):
                val = json.dumps(val) if isinstance(val, (list, dict)) else str(val)
            why = nz.compare_cell(pgtype, elemtype, cell, nz.Cell(val, True))
            if why:
                return "row %d, column %s: ours %s, expected %s [%s]" % (r + 1, col, short(cell), short(val), why)
    return None


def blob_columns(columns_tsv, relpath):
    """Top-level columns DuckDB renders as BLOB (from COLUMNS.tsv)."""
    return columns_tsv.get(relpath, set())


def load_columns_tsv(path):
    out = {}
    if not path or not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        header = None
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if header is None:
                header = parts
                continue
            rec = dict(zip(header, parts))
            col = rec.get("column", "")
            if "." in col:
                continue
            if rec.get("logical_type", "").startswith(("GEOMETRY", "GEOGRAPHY")):
                out.setdefault(("geo", rec["file"]), set()).add(col)
            elif rec.get("duckdb_type") == "BLOB":
                out.setdefault(rec["file"], set()).add(col)
    return out


def is_parquet(path):
    name = os.path.basename(path)
    if name.endswith(".parquet") or name.endswith(".parquet.encrypted"):
        return True
    if name.endswith((".csv", ".json", ".yaml", ".md", ".bin", ".tsv", ".txt")):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) in (b"PAR1", b"PARE")
    except OSError:
        return False


def expected_csv_for(path):
    for cand in (path + ".expected.csv", re.sub(r"\.parquet$", "", path) + ".expected.csv"):
        if os.path.exists(cand):
            return cand
    return None


def judge(rel, abspath, bad, exp, blob_cols, corpus_root, geo_cols=()):
    """Returns (passed: bool, message)."""
    csv_path = expected_csv_for(abspath)
    o = read_file(abspath)

    alive_note = ""
    if o.crashed or o.timed_out or o.error:
        if not server_alive():
            return False, "server did not come back after this file (%s)" % (o.error or "?")
    if o.crashed:
        return False, o.error
    if o.timed_out:
        return False, o.error

    state = "SQLSTATE %s" % o.sqlstate if o.sqlstate else "no SQLSTATE"

    if exp and "error" in exp:
        want = exp["error"]
        if o.error is None:
            return False, "expected an ERROR%s, got %d rows" % (
                "" if want is True else " " + want, len(o.rows))
        if want is not True and o.sqlstate != want:
            return False, "expected SQLSTATE %s, got %s: %s" % (want, state, o.error[:MAX_REASON])
        return True, "ERROR as expected (%s)%s" % (state, alive_note)

    if exp and (exp.get("error_or_csv") or exp.get("error_or_rows")) and o.error is not None:
        return True, "ERROR (acceptable per MANIFEST notes; %s): %s" % (state, o.error[:160])

    if bad and not exp:
        if o.error is None:
            return False, "bad_data file was read without error (%d rows)" % len(o.rows)
        return True, "ERROR as expected (%s)" % state

    if o.error is not None:
        return False, "read failed (%s): %s" % (state, o.error[:MAX_REASON])

    if exp and "row_count" in exp and len(o.rows) != exp["row_count"]:
        return False, "row count %d vs %d (expectations.py)" % (len(o.rows), exp["row_count"])

    if exp and "rows" in exp:
        why = compare_python_rows(o, exp["rows"])
        return (why is None), (why or "%d rows match expectations.py" % len(o.rows))

    if exp and "same_as" in exp:
        other = os.path.join(corpus_root, exp["same_as"])
        ocsv = expected_csv_for(other)
        if not ocsv:
            return False, "expectations.py same_as %s has no expected CSV" % exp["same_as"]
        header, body = load_expected_csv(ocsv)
        why = compare_rows(o, header, body, blob_cols, geo_cols)
        return (why is None), (why or "%d rows match %s's expected CSV" % (len(o.rows), exp["same_as"]))

    if csv_path is None:
        return False, "new file without a test (no expected CSV, no expectations.py entry)"

    header, body = load_expected_csv(csv_path, exp.get("csv_overrides") if exp else None)
    why = compare_rows(o, header, body, blob_cols, geo_cols)
    if why:
        return False, why
    extra = " (with documented overrides)" if exp and exp.get("csv_overrides") else ""
    return True, "%d rows x %d columns match%s" % (len(o.rows), len(o.columns), extra)


def setup_server():
    rc, out, err, _ = psql(
        "CREATE EXTENSION IF NOT EXISTS parquet_fdw;\n"
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_foreign_server WHERE srvname = %s) THEN "
        "CREATE SERVER %s FOREIGN DATA WRAPPER parquet_fdw; END IF; END $$;\n" % (sql_lit(SERVER), SERVER))
    if rc != 0:
        return first_error_line(err)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_corpus = os.environ.get("PARQUET_TESTING_DIR") or os.path.normpath(
        os.path.join(HERE, "..", "..", "..", "shared", "parquet-testing"))
    ap.add_argument("--corpus", default=default_corpus, help="parquet-testing root (data/, bad_data/, ...)")
    ap.add_argument("--manifest", default=None, help="MANIFEST.tsv (default: CORPUS/MANIFEST.tsv)")
    ap.add_argument("--columns", default=None, help="COLUMNS.tsv (default: beside the manifest)")
    ap.add_argument("--dir", default=None, help="compare a folder of *.parquet + *.expected.csv instead")
    ap.add_argument("--only", action="append", default=[], help="only files whose path contains this")
    ap.add_argument("--label", default="conformance", help="prefix of the summary line")
    ap.add_argument("--skip-setup", action="store_true",
                    help="do not CREATE EXTENSION/SERVER (harness self-checks with a mock)")
    args = ap.parse_args()

    files = []  # (rel, abs, bad, expectation)
    if args.dir:
        root = os.path.abspath(args.dir)
        for dp, _, fns in os.walk(root):
            for fn in sorted(fns):
                p = os.path.join(dp, fn)
                if is_parquet(p):
                    files.append((os.path.relpath(p, root), p, False, None))
        columns_tsv = {}
    else:
        root = os.path.abspath(args.corpus)
        if not os.path.isdir(root):
            print("conformance: corpus not found: %s" % root)
            print("%s: 0 passed, 1 failed" % args.label)
            return 1
        for sub in ("data", "shredded_variant", "bad_data"):
            base = os.path.join(root, sub)
            for dp, dns, fns in os.walk(base):
                dns.sort()
                for fn in sorted(fns):
                    p = os.path.join(dp, fn)
                    if is_parquet(p):
                        rel = os.path.relpath(p, root)
                        files.append((rel, p, sub == "bad_data", EXPECT.get(rel)))
        manifest = args.manifest or os.path.join(root, "MANIFEST.tsv")
        columns_tsv = load_columns_tsv(args.columns or os.path.join(os.path.dirname(manifest), "COLUMNS.tsv"))
        # expectations for files that are not in the corpus: stale entries
        present = {f[0] for f in files}
        for k in sorted(EXPECT):
            if k not in present:
                print("NOTE %s: expectations.py entry but no such file in this corpus" % k)

    if args.only:
        files = [f for f in files if any(s in f[0] for s in args.only)]

    err = None if args.skip_setup else setup_server()
    if err:
        print("conformance: cannot set up the extension/server: %s" % err)
        print("%s: 0 passed, %d failed" % (args.label, max(1, len(files))))
        return 1

    passed = failed = xfailed = 0
    t0 = time.time()
    for rel, p, bad, exp in sorted(files):
        t = time.time()
        try:
            ok, msg = judge(rel, p, bad, exp, blob_columns(columns_tsv, rel), root,
                            columns_tsv.get(("geo", rel), set()))
        except Exception as e:  # a harness bug must not hide the other files
            ok, msg = False, "harness exception: %s: %s" % (type(e).__name__, e)
        dt = time.time() - t
        gap = next((why for pre, why in KNOWN_GAPS.items() if rel.startswith(pre)), None)
        verdict = "PASS" if ok else "FAIL"
        if ok:
            passed += 1
        elif gap and "crash" not in msg.lower() and "timed out" not in msg:
            xfailed += 1
            verdict = "XFAIL"
            msg = "%s [known gap: %s]" % (msg, gap)
        else:
            failed += 1
        print("%s %s: %s (%.1fs)" % (verdict, rel, msg[:MAX_REASON * 2], dt), flush=True)
    psql("DROP FOREIGN TABLE IF EXISTS %s;" % TABLE)
    print("elapsed %.1fs over %d files" % (time.time() - t0, len(files)))
    if xfailed:
        print("%s: %d known gaps (XFAIL above, not counted)" % (args.label, xfailed))
    print("%s: %d passed, %d failed" % (args.label, passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
