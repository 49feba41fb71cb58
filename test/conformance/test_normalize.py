#!/usr/bin/env python3
"""Self-test of the conformance harness's CSV parsing and normalization.

Runs without PostgreSQL.  Prints one line per failing check and ends with
"normalize: N passed, N failed".
"""
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import normalize as nz  # noqa: E402
import expectations  # noqa: E402

PASSED = 0
FAILED = 0


def check(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("FAIL %s %s" % (name, detail))


def same(pgtype, ours, theirs, elem=None, blob=False):
    return nz.compare_cell(pgtype, elem, nz.Cell(ours, True), nz.Cell(theirs, True), blob) is None


def cells(text):
    return [[(c.text, c.quoted) for c in row] for row in nz.parse_csv(text)]


# ---- CSV
check("csv basic", cells('a,b\n1,x\n') == [[("a", False), ("b", False)], [("1", False), ("x", False)]])
check("csv null vs empty", cells(',""\n') == [[("", False), ("", True)]])
check("csv quotes", cells('"a ""q"", b","line\nbreak"\r\n') == [[('a "q", b', True), ("line\nbreak", True)]])
check("csv no final newline", cells("1,2") == [[("1", False), ("2", False)]])
check("csv empty", cells("") == [])
check("csv header only", cells("a\n") == [[("a", False)]])
check("csv NULL cell", nz.parse_csv("x,\n")[0][1].is_null and not nz.parse_csv('x,""\n')[0][1].is_null)
try:
    nz.parse_csv('"abc\n')
    check("csv unterminated raises", False)
except ValueError:
    check("csv unterminated raises", True)

# ---- bool / ints / numeric
check("bool t/true", same("boolean", "t", "true") and same("boolean", "f", "false"))
check("bool differs", not same("boolean", "t", "false"))
check("int", same("bigint", "-9223372036854775808", "-9223372036854775808"))
check("int differs", not same("integer", "1", "2"))
check("numeric scale", same("numeric(10,2)", "1.00", "1.00") and same("numeric", "1.0", "1.00"))
check("numeric differs", not same("numeric(25,2)", "1.01", "1.00"))
check("numeric big", same("numeric(38,0)", "12345678901234567890123456789", "12345678901234567890123456789"))
check("numeric NaN", same("numeric", "NaN", "nan"))

# ---- floats
check("float8 same double", same("double precision", "0.1", "0.1"))
check("float8 long form", same("double precision", "0.10000000000000001", "0.1"))
check("float8 differs in last bit", not same("double precision", "0.1", "0.10000000000000002"))
check("float8 nan", same("double precision", "NaN", "nan"))
check("float8 inf", same("double precision", "Infinity", "inf") and same("double precision", "-Infinity", "-inf"))
check("float8 inf vs nan", not same("double precision", "Infinity", "nan"))
check("float8 -0", same("double precision", "-0", "-0.0"))
check("float4 precision", same("real", "1.1", "1.1") and same("real", "1.10000002", "1.1"))
check("float4 differs", not same("real", "1.2", "1.1"))
check("float4 column, float8 rendering differs", not same("double precision", "1.10000002384186", "1.1"))

# ---- dates and timestamps
check("date", same("date", "2009-03-01", "2009-03-01"))
# day numbers of the proleptic Gregorian calendar, against a count by hand:
# 0000-03-01 (1 BC) is 719468 days before 1970-01-01, year 0 is a leap year,
# year -1 (2 BC) is not, and -400 (401 BC) is a 400-year cycle before 0.
check("civil day 1970", nz._days_from_civil(1970, 1, 1) == 0)
check("civil day 0000-03-01", nz._days_from_civil(0, 3, 1) == -719468)
check("civil day 0000-01-01", nz._days_from_civil(0, 1, 1) == -719528)
check("civil day -0001-01-01", nz._days_from_civil(-1, 1, 1) == -719528 - 365)
check("civil day -0400-01-01", nz._days_from_civil(-400, 1, 1) == -719528 - 146097)
check("civil day -0002-12-31", nz._days_from_civil(-2, 12, 31) == -719528 - 365 - 1)
check("date BC", same("date", "0044-03-15 BC", "0044-03-15 (BC)"))
check("date differs", not same("date", "2009-03-01", "2009-03-02"))
check("ts", same("timestamp without time zone", "2009-03-01 00:00:00", "2009-03-01 00:00:00"))
check("ts frac", same("timestamp without time zone", "2024-01-01 20:34:56.123456", "2024-01-01 20:34:56.123456"))
check("ts frac trailing zeros", same("timestamp without time zone", "2024-01-01 20:34:56.1", "2024-01-01 20:34:56.100"))
check("ts ns rounded to us", same("timestamp without time zone", "2024-01-01 00:00:00.123457", "2024-01-01 00:00:00.123456789"))
check("ts ns truncated to us", same("timestamp without time zone", "2024-01-01 00:00:00.123456", "2024-01-01 00:00:00.123456789"))
check("ts ns not rounded up below half", not same("timestamp without time zone", "2024-01-01 00:00:00.123457", "2024-01-01 00:00:00.123456499"))
check("ts ns tie rounded up", same("timestamp without time zone", "2024-01-01 00:00:00.123457", "2024-01-01 00:00:00.1234565"))
check("ts ns before 1970 tie rounded up", same("timestamp without time zone", "1837-10-23 19:47:19.516484", "1837-10-23 19:47:19.5164835"))
check("ts ns before 1970 floor", same("timestamp without time zone", "1837-10-23 19:47:19.516483", "1837-10-23 19:47:19.5164835"))
check("ts ns before 1970 two us off", not same("timestamp without time zone", "1837-10-23 19:47:19.516485", "1837-10-23 19:47:19.5164835"))
check("ts ns before 1970 printed fraction truncated", same("timestamp without time zone", "1969-12-31 23:59:59.999999", "1969-12-31 23:59:59.9999991"))
check("ts ns before 1970 epoch truncated toward zero", same("timestamp without time zone", "1970-01-01 00:00:00", "1969-12-31 23:59:59.9999991"))
check("ts ns off by 2us", not same("timestamp without time zone", "2024-01-01 00:00:00.123458", "2024-01-01 00:00:00.123456789"))
check("ts differs", not same("timestamp without time zone", "2009-03-01 00:00:01", "2009-03-01 00:00:00"))
check("ts year 290000", same("timestamp without time zone", "290000-12-30 23:00:00", "290000-12-30 23:00:00"))
check("ts BC", same("timestamp without time zone", "0001-01-01 00:00:00 BC", "0001-01-01 (BC) 00:00:00"))
check("tstz +00", same("timestamp with time zone", "2009-03-01 00:00:00+00", "2009-03-01 00:00:00+00"))
check("tstz offset", same("timestamp with time zone", "2009-03-01 01:00:00+01", "2009-03-01 00:00:00+00"))
check("tstz differs", not same("timestamp with time zone", "2009-03-01 01:00:00+00", "2009-03-01 00:00:00+00"))
check("time", same("time without time zone", "12:34:56.789", "12:34:56.789"))
check("timetz", same("time with time zone", "12:34:56+00", "12:34:56+00"))

# ---- bytea
check("bytea hex vs blob", same("bytea", "\\x000102", "\\x00\\x01\\x02"))
check("bytea printable", same("bytea", "\\x616263", "abc"))
check("bytea mixed", same("bytea", "\\x61005c", "a\\x00\\x5C"))
check("bytea differs", not same("bytea", "\\x616263", "abd"))
check("bytea empty", same("bytea", "\\x", ""))
check("text vs DuckDB blob column", same("text", "a\x01", "a\\x01", blob=True))
check("text exact", same("text", "a\\x01", "a\\x01") and not same("text", "a\x01", "a\\x01"))

# ---- arrays
check("array ints", same("bigint[]", "{1,2,3}", "[1, 2, 3]", elem="bigint"))
check("array NULL", same("bigint[]", "{NULL,1}", "[NULL, 1]", elem="bigint"))
check("array empty", same("integer[]", "{}", "[]", elem="integer"))
check("array text quoted", same("text[]", '{abc,"e f",NULL}', "[abc, e f, NULL]", elem="text"))
check("array text NULL string", not same("text[]", '{"NULL"}', "[NULL]", elem="text"))
check("array differs", not same("bigint[]", "{1,2}", "[1, 2, 3]", elem="bigint"))
check("array 2d", same("integer[]", "{{1,2},{3,4}}", "[[1, 2], [3, 4]]", elem="integer"))
check("array float4", same("real[]", "{1.1,NaN}", "[1.1, nan]", elem="real"))
check("array bool", same("boolean[]", "{t,f}", "[true, false]", elem="boolean"))

# ---- DuckDB nested text -> JSON
check("jsonb list", same("jsonb", "[1, 2, null]", "[1, 2, NULL]"))
check("jsonb struct", same("jsonb", '{"A": 1, "b": [1]}', "{'A': 1, 'b': [1]}"))
check("jsonb struct differs", not same("jsonb", '{"A": 2, "b": [1]}', "{'A': 1, 'b': [1]}"))
check("jsonb struct string", same("jsonb", '{"F": "aaa", "E": -10}', "{'F': aaa, 'E': -10}"))
check("jsonb map", same("jsonb", '{"k1": 1, "k2": null}', "{k1=1, k2=NULL}"))
check("jsonb map int keys", same("jsonb", '{"1": true, "2": false}', "{1=true, 2=false}"))
check("jsonb map as kv array", same("jsonb", '[{"key": 1, "value": true}]', "{1=true}"))
check("jsonb map size differs", not same("jsonb", '{"1": true}', "{1=true, 2=false}"))
check("jsonb nested", same("jsonb",
      '{"A": null, "b": [null], "C": {"d": [[{"E": null, "F": null}, {"E": 10, "F": "aaa"}], []]}, "g": {"g1": {"H": {"i": [2.2, null]}}, "g3": null}}',
      "{'A': NULL, 'b': [NULL], 'C': {'d': [[{'E': NULL, 'F': NULL}, {'E': 10, 'F': aaa}], []]}, 'g': {g1={'H': {'i': [2.2, NULL]}}, g3=NULL}}"))
check("jsonb null vs 'NULL' string", not same("jsonb", '["NULL"]', "[NULL]"))
# DuckDB's nested text does not quote plain strings: a bare 1 may be the
# string "1", so it matches both; a quoted '1' is only ever a string.
check("jsonb bare token vs string", same("jsonb", '["1"]', "[1]"))
check("jsonb quoted token vs number", not same("jsonb", '[1]', "['1']"))
check("jsonb bool", same("jsonb", "[true]", "[true]") and not same("jsonb", "[1]", "[true]"))
check("jsonb date string", same("jsonb", '{"b": "2024-01-30"}', "{'b': 2024-01-30}"))
check("jsonb timestamp T", same("jsonb", '["2024-01-30T01:02:03"]', "[2024-01-30 01:02:03]"))
check("jsonb variant scalar", same("jsonb", "false", "false") and same("jsonb", '"comedy"', "comedy"))
check("jsonb variant array", same("jsonb", '["comedy", "drama"]', "[comedy, drama]"))
check("jsonb float4 leaf", same("jsonb", "[1.100000023841858]", "[1.1]"))
check("jsonb double differs", not same("jsonb", "[0.30000000000000004]", "[0.3]"))
check("jsonb decimal", same("jsonb", "[1.50]", "[1.5]"))
check("jsonb quoted string with comma", same("jsonb", '["a, b", "c"]', "['a, b', c]"))
check("jsonb bytes", same("jsonb", '["\\\\x0001"]', "[\\x00\\x01]"))
check("jsonb json column", same("jsonb", '{"a": [1, 2]}', '{"a": [1, 2]}'))
check("jsonb empty map", same("jsonb", "{}", "{}"))

# ---- geometry (DuckDB WKT vs WKB bytea / WKT text)
def geo(pgtype, ours, theirs):
    return nz.compare_cell(pgtype, None, nz.Cell(ours, True), nz.Cell(theirs, True), geo=True) is None


check("geo point wkb", geo("bytea", "\\x01010000000000000000003E400000000000002440", "POINT (30 10)"))
check("geo point wkb differs", not geo("bytea", "\\x01010000000000000000003E400000000000002440", "POINT (30 11)"))
check("geo linestring wkb", geo("bytea", "\\x0102000000030000000000000000003E40000000000000244000000000000024400000000000003E4000000000000044400000000000004440",
                                "LINESTRING (30 10, 10 30, 40 40)"))
check("geo big-endian point", geo("bytea", "\\x0000000001403E0000000000004024000000000000", "POINT (30 10)"))
check("geo empty point (NaN)", geo("bytea", "\\x0101000000000000000000F87F000000000000F87F", "POINT EMPTY"))
check("geo multipoint forms", geo("text", "MULTIPOINT ((30 10), (1 2))", "MULTIPOINT (30 10, 1 2)"))
check("geo Z vs XY", not geo("text", "POINT Z (1 2 3)", "POINT (1 2)"))
check("geo collection", geo("text", "GEOMETRYCOLLECTION (POINT (30 10), LINESTRING (1 2, 3 4))",
                            "GEOMETRYCOLLECTION (POINT (30 10), LINESTRING (1 2, 3 4))"))
check("geo nan coords", geo("text", "LINESTRING ZM (90 100 110 120, nan nan nan nan)", "LINESTRING ZM (90 100 110 120, nan nan nan nan)"))
check("geo garbage bytes", not geo("bytea", "\\x0101", "POINT (1 2)"))

# ---- interval (PostgreSQL IntervalStyle postgres vs DuckDB)
check("interval ymd hms", same("interval", "1 year 2 mons 3 days 04:05:06.789", "1 year 2 months 3 days 04:05:06.789"))
check("interval zero", same("interval", "00:00:00", "00:00:00"))
check("interval plural", same("interval", "100 years", "100 years") and same("interval", "11 mons 30 days 23:59:59.999",
                                                                             "11 months 30 days 23:59:59.999"))
check("interval hours over 24", same("interval", "36:00:00", "36:00:00"))
check("interval ms", same("interval", "00:00:00.001", "00:00:00.001"))
check("interval negative parts", same("interval", "-1 years -2 mons +3 days -04:05:06", "-1 year -2 months 3 days -04:05:06"))
check("interval not justified", not same("interval", "1 mon", "30 days") and not same("interval", "1 day", "24:00:00"))
check("interval differs", not same("interval", "1 year 2 mons", "1 year 3 months"))
check("interval ms differs", not same("interval", "00:00:00.001", "00:00:00.002"))
check("interval garbage", not same("interval", "1 fortnight", "1 fortnight"))

# ---- parse_duck_nested edge cases
v = nz.parse_duck_nested("{'a': [1, 2], 'b': {x=NULL}}")
check("nested struct parse", isinstance(v, nz.DStruct) and [k for k, _ in v.fields] == ["a", "b"])
check("nested map parse", isinstance(nz.parse_duck_nested("{a={1=true}}"), nz.DMap))
try:
    nz.parse_duck_nested("[1, 2")
    check("nested unterminated raises", False)
except ValueError:
    check("nested unterminated raises", True)

# ---- expectations.py sanity
for k, e in expectations.EXPECT.items():
    check("expectation %s has why" % k, bool(e.get("why")))
    kinds = [x for x in ("error", "error_or_csv", "error_or_rows", "rows", "same_as", "csv_overrides") if x in e]
    check("expectation %s has an outcome" % k, bool(kinds), str(e))

print("normalize: %d passed, %d failed" % (PASSED, FAILED))
sys.exit(0 if FAILED == 0 else 1)
