"""CSV parsing and type-aware value normalization for the conformance harness.

Python 3 standard library only.  Two renderings of the same data are compared:

  ours   PostgreSQL: COPY (SELECT * FROM t) TO STDOUT (FORMAT csv, HEADER),
         session TimeZone UTC, DateStyle ISO.
  theirs DuckDB 1.5.6: COPY ... TO (FORMAT csv, HEADER), TimeZone UTC.

Both use NULL = empty unquoted field and empty string = "".  Each cell is
normalized according to the PostgreSQL type of its column (from the
catalog); the normalized values are compared with ==.  Nothing here makes a
comparison looser than "same value in the column's type" -- the only
precision allowances are those forced by PostgreSQL's types (float4 columns
compare at float4 precision; timestamps at PostgreSQL's microsecond
resolution).
"""

import datetime
import json
import math
import re
import struct
from decimal import Decimal, InvalidOperation

# --------------------------------------------------------------------------
# CSV


class Cell:
    """A CSV field: text plus whether it was quoted (to tell NULL from "")."""

    __slots__ = ("text", "quoted")

    def __init__(self, text, quoted):
        self.text = text
        self.quoted = quoted

    @property
    def is_null(self):
        return self.text == "" and not self.quoted

    def __repr__(self):
        return "NULL" if self.is_null else repr(self.text)


def parse_csv(data):
    """RFC 4180 CSV -> list of rows (lists of Cell).  Keeps quotedness.

    Accepts \\n and \\r\\n line ends; a final line end is optional.
    """
    rows = []
    row = []
    i = 0
    n = len(data)
    if n == 0:
        return rows
    while True:
        # start of a field
        if i < n and data[i] == '"':
            i += 1
            buf = []
            while True:
                j = data.find('"', i)
                if j < 0:
                    raise ValueError("unterminated quoted CSV field")
                buf.append(data[i:j])
                if j + 1 < n and data[j + 1] == '"':
                    buf.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            cell = Cell("".join(buf), True)
            # garbage after the closing quote up to the delimiter is an error
            if i < n and data[i] not in ",\r\n":
                raise ValueError("unexpected character after quoted field at %d" % i)
        else:
            j = i
            while j < n and data[j] not in ",\r\n":
                j += 1
            cell = Cell(data[i:j], False)
            i = j
        row.append(cell)
        if i >= n:
            rows.append(row)
            break
        c = data[i]
        if c == ",":
            i += 1
            continue
        # end of line
        if c == "\r" and i + 1 < n and data[i + 1] == "\n":
            i += 2
        else:
            i += 1
        rows.append(row)
        row = []
        if i >= n:
            break
    return rows


# --------------------------------------------------------------------------
# scalar normalizers (each returns a hashable, comparable value)


class Mismatch(Exception):
    pass


def _float_token(s):
    t = s.strip()
    low = t.lower()
    if low in ("nan", "-nan", "+nan"):
        return math.nan
    if low in ("inf", "infinity", "+inf", "+infinity"):
        return math.inf
    if low in ("-inf", "-infinity"):
        return -math.inf
    return float(t)


def norm_float8(s):
    v = _float_token(s)
    if math.isnan(v):
        return ("nan",)
    return ("f", v)


def _to_f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def norm_float4(s):
    v = _float_token(s)
    if math.isnan(v):
        return ("nan",)
    try:
        return ("f", _to_f32(v))
    except OverflowError:
        return ("f", math.copysign(math.inf, v))


def norm_int(s):
    return ("i", int(s.strip()))


def norm_numeric(s):
    t = s.strip()
    low = t.lower()
    if low == "nan":
        return ("nan",)
    if low in ("infinity", "inf"):
        return ("f", math.inf)
    if low in ("-infinity", "-inf"):
        return ("f", -math.inf)
    try:
        d = Decimal(t)
    except InvalidOperation:
        raise ValueError("not a number: %r" % s)
    return ("d", d.normalize() if d != 0 else Decimal(0))


def norm_bool(s):
    t = s.strip().lower()
    if t in ("t", "true"):
        return True
    if t in ("f", "false"):
        return False
    raise ValueError("not a boolean: %r" % s)


_BC_RE = re.compile(r"\s*\(?BC\)?\s*")


def _split_bc(s):
    t = s.strip()
    bc = False
    if t.endswith("BC") or "(BC)" in t or " BC" in t:
        bc = True
        t = _BC_RE.sub(" ", t).strip()
    return t, bc


_DATE_RE = re.compile(r"^(-?\d{1,7})-(\d{1,2})-(\d{1,2})$")


def norm_date(s):
    t, bc = _split_bc(s)
    low = t.lower()
    if low in ("infinity", "-infinity"):
        return ("inf", low)
    m = _DATE_RE.match(t)
    if not m:
        raise ValueError("not a date: %r" % s)
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if bc:
        y = 1 - y  # astronomical year numbering
    return ("date", y, mo, d)


_TS_RE = re.compile(
    r"^(-?\d{1,7})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$"
)


def _frac_to_ns(frac):
    if not frac:
        return 0
    return int((frac + "000000000")[:9])


def _days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400  # Python's // floors already: no C-style adjustment for y < 0
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _parse_ts(s):
    """-> (epoch nanoseconds in UTC if an offset is given, has_offset)."""
    t, bc = _split_bc(s)
    m = _TS_RE.match(t)
    if not m:
        raise ValueError("not a timestamp: %r" % s)
    y = int(m.group(1))
    if bc:
        y = 1 - y
    days = _days_from_civil(y, int(m.group(2)), int(m.group(3)))
    secs = days * 86400 + int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6) or 0)
    ns = secs * 1_000_000_000 + _frac_to_ns(m.group(7))
    off = m.group(8)
    if off:
        if off == "Z":
            offs = 0
        else:
            sign = -1 if off[0] == "-" else 1
            digits = off[1:].replace(":", "")
            hh = int(digits[0:2])
            mm = int(digits[2:4] or 0)
            ss = int(digits[4:6] or 0)
            offs = sign * (hh * 3600 + mm * 60 + ss)
        ns -= offs * 1_000_000_000
    return ns, bool(off)


def _ts_norm(s, with_tz):
    t = s.strip().lower()
    if t in ("infinity", "-infinity"):
        return ("inf", t)
    ns, has_off = _parse_ts(s)
    if with_tz and not has_off:
        raise ValueError("timestamptz without offset: %r" % s)
    return ("ts", ns)


def norm_timestamp(s):
    return _ts_norm(s, False)


def norm_timestamptz(s):
    return _ts_norm(s, True)


_TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$")


def norm_time(s):
    m = _TIME_RE.match(s.strip())
    if not m:
        raise ValueError("not a time: %r" % s)
    ns = (int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)) * 1_000_000_000 + _frac_to_ns(m.group(4))
    off = m.group(5)
    offs = None
    if off:
        if off == "Z":
            offs = 0
        else:
            sign = -1 if off[0] == "-" else 1
            digits = off[1:].replace(":", "")
            offs = sign * (int(digits[0:2]) * 3600 + int(digits[2:4] or 0) * 60)
    return ("time", ns, offs)


def us_round_variants(ours_norm, theirs_norm):
    """PostgreSQL timestamps/times hold microseconds; DuckDB may print ns.

    Returns True when ours equals theirs truncated (toward zero or toward
    minus infinity: they differ before 1970) or rounded to the nearest
    microsecond, ties either way (PostgreSQL's input routine rounds the
    printed fraction, which is upward in epoch terms before 1970 too).
    """
    if not isinstance(theirs_norm, tuple) or not isinstance(ours_norm, tuple):
        return False
    tag = theirs_norm[0]
    if tag not in ("ts", "time") or ours_norm[0] != tag:
        return False
    ns = theirs_norm[1]
    if ns % 1000 == 0:
        return False
    floor = (ns // 1000) * 1000
    ceil = floor + 1000
    allowed = {floor}
    if ns < 0 or ns - floor >= 500:
        allowed.add(ceil)       # truncation toward zero, or nearest
    return ours_norm[1] in allowed and ours_norm[2:] == theirs_norm[2:]


_IV_UNIT_RE = re.compile(r"^([+-]?\d+)\s+(years?|mons?|months?|days?)$")
_IV_TIME_RE = re.compile(r"^([+-]?)(\d+):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$")


def norm_interval(s):
    """PostgreSQL (IntervalStyle postgres) or DuckDB interval text.

    PostgreSQL: '1 year 2 mons 3 days 04:05:06.789', '-1 days +02:00:00';
    DuckDB: '1 year 2 months 3 days 04:05:06.789'.  Both keep months, days
    and the time part apart (neither justifies), so the value is the triple
    (months, days, nanoseconds).
    """
    toks = s.strip().split()
    months = days = ns = 0
    i = 0
    seen = False
    while i < len(toks):
        m = _IV_TIME_RE.match(toks[i])
        if m:
            t = (int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4) or 0)) * 1_000_000_000
            t += _frac_to_ns(m.group(5))
            ns += -t if m.group(1) == "-" else t
            i += 1
            seen = True
            continue
        m = _IV_UNIT_RE.match(" ".join(toks[i:i + 2]))
        if not m:
            raise ValueError("not an interval: %r" % s)
        n, unit = int(m.group(1)), m.group(2)
        if unit.startswith("year"):
            months += 12 * n
        elif unit.startswith("mon"):
            months += n
        else:
            days += n
        i += 2
        seen = True
    if not seen:
        raise ValueError("not an interval: %r" % s)
    return ("interval", months, days, ns)


def decode_pg_bytea(s):
    t = s.strip()
    if t.startswith("\\x"):
        return bytes.fromhex(t[2:])
    # escape format (bytea_output = escape)
    out = bytearray()
    i = 0
    while i < len(t):
        c = t[i]
        if c == "\\":
            if t[i + 1] == "\\":
                out.append(0x5C)
                i += 2
            else:
                out.append(int(t[i + 1:i + 4], 8))
                i += 4
        else:
            out.extend(c.encode("utf-8"))
            i += 1
    return bytes(out)


_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


def decode_duckdb_blob(s):
    """DuckDB BLOB text: printable ASCII literal, everything else \\xNN."""
    out = bytearray()
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\" and s[i + 1:i + 2] in ("x", "X") and _HEX2.fullmatch(s[i + 2:i + 4]):
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        else:
            out.extend(c.encode("utf-8"))
            i += 1
    return bytes(out)


def norm_bytea_pg(s):
    return ("bytes", decode_pg_bytea(s))


def norm_bytea_duck(s):
    return ("bytes", decode_duckdb_blob(s))


def norm_uuid(s):
    return ("uuid", s.strip().lower().replace("-", ""))


def norm_text(s):
    return ("s", s)


# --------------------------------------------------------------------------
# PostgreSQL array literals


def parse_pg_array(s):
    """'{1,2,NULL}' / '{{1,2},{3,4}}' / '{"a b","c\\"d"}' -> nested lists of str/None.

    An optional dimension decoration ('[0:2]={...}') is skipped.
    """
    t = s.strip()
    if t.startswith("["):
        eq = t.find("=")
        t = t[eq + 1:]
    pos = [0]

    def elem():
        i = pos[0]
        if t[i] == "{":
            pos[0] += 1
            items = []
            if t[pos[0]] == "}":
                pos[0] += 1
                return items
            while True:
                items.append(elem())
                c = t[pos[0]]
                pos[0] += 1
                if c == "}":
                    return items
                if c != ",":
                    raise ValueError("bad array literal %r" % s)
        if t[i] == '"':
            i += 1
            buf = []
            while t[i] != '"':
                if t[i] == "\\":
                    i += 1
                buf.append(t[i])
                i += 1
            pos[0] = i + 1
            return "".join(buf)
        j = i
        while t[j] not in ",}":
            j += 1
        pos[0] = j
        tok = t[i:j].strip()
        return None if tok.upper() == "NULL" else tok

    if not t.startswith("{"):
        raise ValueError("not an array literal: %r" % s)
    v = elem()
    if pos[0] != len(t):
        raise ValueError("trailing data in array literal %r" % s)
    return v


# --------------------------------------------------------------------------
# DuckDB nested text: [a, b], {'k': v}, {k=v}


class Atom:
    """A scalar in DuckDB's nested text: bare text or quoted string."""

    __slots__ = ("text", "quoted")

    def __init__(self, text, quoted):
        self.text = text
        self.quoted = quoted

    def __repr__(self):
        return ("Q" if self.quoted else "") + repr(self.text)

    @property
    def is_null(self):
        return not self.quoted and self.text == "NULL"


class DMap:
    """A DuckDB MAP: ordered list of (key, value) pairs."""

    __slots__ = ("pairs",)

    def __init__(self, pairs):
        self.pairs = pairs

    def __repr__(self):
        return "DMap(%r)" % (self.pairs,)


class DStruct:
    __slots__ = ("fields",)

    def __init__(self, fields):
        self.fields = fields  # list of (name, value)

    def __repr__(self):
        return "DStruct(%r)" % (self.fields,)


def parse_duck_nested(s):
    """Parse DuckDB's text form of LIST/STRUCT/MAP (and VARIANT) values.

    Returns list (LIST), DStruct, DMap or Atom.  Struct field names are
    single-quoted ('k': v); map entries are k=v; strings are bare unless they
    contain special characters, in which case DuckDB quotes them ('...' or
    "..."; a doubled or backslash-escaped quote stands for itself).
    """
    n = len(s)
    pos = [0]

    def ws():
        while pos[0] < n and s[pos[0]] == " ":
            pos[0] += 1

    def quoted():
        q = s[pos[0]]
        i = pos[0] + 1
        buf = []
        while True:
            if i >= n:
                raise ValueError("unterminated quote in %r" % s)
            c = s[i]
            if c == "\\" and i + 1 < n:
                buf.append(s[i + 1])
                i += 2
                continue
            if c == q:
                if i + 1 < n and s[i + 1] == q:
                    buf.append(q)
                    i += 2
                    continue
                i += 1
                break
            buf.append(c)
            i += 1
        pos[0] = i
        return "".join(buf)

    def bare(stops):
        i = pos[0]
        depth = 0
        j = i
        while j < n:
            c = s[j]
            if depth == 0 and c in stops:
                break
            if c in "([":
                depth += 1
            elif c in ")]" and depth > 0:
                depth -= 1
            j += 1
        pos[0] = j
        return s[i:j].rstrip()

    def value(stops):
        ws()
        if pos[0] >= n:
            return Atom("", False)
        c = s[pos[0]]
        if c == "[":
            pos[0] += 1
            items = []
            ws()
            if pos[0] < n and s[pos[0]] == "]":
                pos[0] += 1
                return items
            while True:
                items.append(value(",]"))
                ws()
                if pos[0] >= n:
                    raise ValueError("unterminated list in %r" % s)
                c = s[pos[0]]
                pos[0] += 1
                if c == "]":
                    return items
                if c != ",":
                    raise ValueError("bad list in %r at %d" % (s, pos[0]))
        if c == "{":
            pos[0] += 1
            ws()
            if pos[0] < n and s[pos[0]] == "}":
                pos[0] += 1
                return DMap([])
            entries = []
            kind = None
            while True:
                ws()
                if s[pos[0]] in "'\"":
                    kq = True
                    key = quoted()
                    ws()
                else:
                    kq = False
                    key = None
                sep = s[pos[0]] if pos[0] < n else ""
                if kind is None:
                    kind = "struct" if (kq and sep == ":") else "map"
                if kind == "struct":
                    if sep != ":":
                        raise ValueError("bad struct in %r" % s)
                    pos[0] += 1
                    v = value(",}")
                    entries.append((key, v))
                else:
                    if key is None:
                        k = value("=,}")
                    else:
                        k = Atom(key, True)
                    ws()
                    if s[pos[0]] != "=":
                        raise ValueError("bad map in %r at %d" % (s, pos[0]))
                    pos[0] += 1
                    v = value(",}")
                    entries.append((k, v))
                ws()
                c = s[pos[0]]
                pos[0] += 1
                if c == "}":
                    return DStruct(entries) if kind == "struct" else DMap(entries)
                if c != ",":
                    raise ValueError("bad struct/map in %r at %d" % (s, pos[0]))
        if c in "'\"":
            return Atom(quoted(), True)
        return Atom(bare(stops), False)

    v = value("")
    ws()
    if pos[0] != n:
        raise ValueError("trailing text in nested value %r at %d" % (s, pos[0]))
    return v


# --------------------------------------------------------------------------
# comparing an Atom (DuckDB) with a JSON value (PostgreSQL jsonb)

_NUM_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def atom_matches_json(atom, j):
    """Is DuckDB's scalar text `atom` the same value as JSON value `j`?"""
    if j is None:
        return atom.is_null
    if atom.is_null:
        return False
    t = atom.text
    if isinstance(j, bool):
        return not atom.quoted and t in ("true", "false") and (t == "true") == j
    if isinstance(j, (int, float, Decimal)):
        if atom.quoted:
            return False
        return _num_equal(t, j)
    if isinstance(j, str):
        if t == j:
            return True
        # temporal values: JSON gives ISO text, DuckDB its own rendering
        for f in (norm_timestamptz, norm_timestamp, norm_date, norm_time):
            try:
                a, b = f(t), f(j)
            except (ValueError, IndexError):
                continue
            if a == b or us_round_variants(b, a):
                return True
        # binary: DuckDB blob escapes vs PostgreSQL \x hex in a JSON string
        if j.startswith("\\x") and re.fullmatch(r"\\x([0-9a-fA-F]{2})*", j):
            return decode_duckdb_blob(t) == bytes.fromhex(j[2:])
        # JSON strings holding special floats ("NaN", "Infinity")
        if j in ("NaN", "Infinity", "-Infinity") and not atom.quoted:
            try:
                return norm_float8(t) == norm_float8(j)
            except ValueError:
                return False
        return False
    return False


def _num_equal(t, j):
    low = t.lower()
    if low in ("nan", "inf", "-inf", "infinity", "-infinity"):
        return False  # JSON has no such numbers
    if not _NUM_RE.match(t):
        return False
    try:
        jd = j if isinstance(j, Decimal) else Decimal(repr(j)) if isinstance(j, float) else Decimal(j)
        if Decimal(t) == jd:
            return True
    except InvalidOperation:
        return False
    # Same double?  DuckDB prints shortest round-trip; jsonb keeps the digits
    # the FDW wrote, which may be a longer exact expansion of the same double.
    jf = float(j)
    tf = float(t)
    if tf == jf:
        return True
    # FLOAT (float4) leaves: DuckDB prints the shortest float4 repr; equal
    # when the JSON number is that same float4 value.
    try:
        if _to_f32(tf) == _to_f32(jf) and _to_f32(jf) == jf and _shortest_f32(jf) == tf:
            return True
    except OverflowError:
        pass
    return False


def _shortest_f32(x):
    f = _to_f32(x)
    for p in range(1, 18):
        s = "%.*g" % (p, f)
        if _to_f32(float(s)) == f:
            return float(s)
    return f


def nested_matches_json(d, j, path="$"):
    """Compare a parsed DuckDB nested value with json.loads of PostgreSQL's.

    Returns None when equal, else a description of the first difference.
    LIST <-> JSON array; STRUCT <-> JSON object with the same keys in order;
    MAP <-> JSON object (keys compared as text) or an array of
    {"key": k, "value": v} objects (both lossless renderings of a map).
    """
    if isinstance(d, Atom):
        if isinstance(j, (list, dict)) and not d.is_null:
            # VARIANT/JSON scalars that hold nested JSON text
            try:
                inner = parse_duck_nested(d.text)
            except ValueError:
                inner = None
            if isinstance(inner, (list, DStruct, DMap)):
                return nested_matches_json(inner, j, path)
            return "%s: %r vs %s" % (path, d.text, json.dumps(j)[:80])
        return None if atom_matches_json(d, j) else "%s: %r vs %s" % (path, d.text, json.dumps(j)[:80])
    if isinstance(d, list):
        if not isinstance(j, list):
            return "%s: list vs %s" % (path, type(j).__name__)
        if len(d) != len(j):
            return "%s: list length %d vs %d" % (path, len(d), len(j))
        for i, (a, b) in enumerate(zip(d, j)):
            r = nested_matches_json(a, b, "%s[%d]" % (path, i))
            if r:
                return r
        return None
    if isinstance(d, DStruct):
        if not isinstance(j, dict):
            return "%s: struct vs %s" % (path, type(j).__name__)
        dk = [k for k, _ in d.fields]
        if dk != list(j.keys()):
            if sorted(dk) != sorted(j.keys()):
                return "%s: struct fields %s vs %s" % (path, dk, list(j.keys()))
        for k, v in d.fields:
            r = nested_matches_json(v, j[k], "%s.%s" % (path, k))
            if r:
                return r
        return None
    if isinstance(d, DMap):
        if isinstance(j, dict):
            if len(d.pairs) != len(j):
                return "%s: map size %d vs %d" % (path, len(d.pairs), len(j))
            keys = list(j.keys())
            for idx, (k, v) in enumerate(d.pairs):
                # JSON object keys are text: the map key's text must match
                ktext = k.text if isinstance(k, Atom) else None
                match = None
                if ktext is not None and ktext in j:
                    match = ktext
                elif isinstance(k, Atom):
                    for cand in keys:
                        if atom_matches_json(k, cand) or (not k.quoted and _num_text_equal(ktext, cand)):
                            match = cand
                            break
                if match is None:
                    return "%s: map key %r missing" % (path, ktext)
                r = nested_matches_json(v, j[match], "%s{%s}" % (path, ktext))
                if r:
                    return r
            return None
        if isinstance(j, list):
            if len(d.pairs) != len(j):
                return "%s: map size %d vs %d" % (path, len(d.pairs), len(j))
            for i, ((k, v), e) in enumerate(zip(d.pairs, j)):
                if isinstance(e, dict) and set(e.keys()) == {"key", "value"}:
                    ek, ev = e["key"], e["value"]
                elif isinstance(e, list) and len(e) == 2:
                    ek, ev = e
                else:
                    return "%s: map entry %d is not a key/value pair" % (path, i)
                r = nested_matches_json(k, ek, "%s<key %d>" % (path, i)) or nested_matches_json(v, ev, "%s<value %d>" % (path, i))
                if r:
                    return r
            return None
        return "%s: map vs %s" % (path, type(j).__name__)
    return "%s: unhandled %r" % (path, d)


def _num_text_equal(a, b):
    try:
        return Decimal(a) == Decimal(b)
    except (InvalidOperation, TypeError):
        return False


# --------------------------------------------------------------------------
# column comparators


SCALAR_NORMALIZERS = {
    "boolean": (norm_bool, norm_bool),
    "smallint": (norm_int, norm_int),
    "integer": (norm_int, norm_int),
    "bigint": (norm_int, norm_int),
    "oid": (norm_int, norm_int),
    "real": (norm_float4, norm_float4),
    "double precision": (norm_float8, norm_float8),
    "numeric": (norm_numeric, norm_numeric),
    "date": (norm_date, norm_date),
    "timestamp without time zone": (norm_timestamp, norm_timestamp),
    "timestamp with time zone": (norm_timestamptz, norm_timestamptz),
    "time without time zone": (norm_time, norm_time),
    "time with time zone": (norm_time, norm_time),
    "bytea": (norm_bytea_pg, norm_bytea_duck),
    "uuid": (norm_uuid, norm_uuid),
    "interval": (norm_interval, norm_interval),
}


def base_type(typname):
    """'numeric(10,2)' -> 'numeric', 'character varying(3)' -> 'character varying'."""
    t = re.sub(r"\(.*?\)", "", typname).strip()
    return t


def compare_scalar(pgtype, ours, theirs, duck_blob=False):
    """Compare two non-NULL cell texts of PostgreSQL type `pgtype`.

    Returns None if equal, else a short reason.  duck_blob: DuckDB rendered
    the column as BLOB (\\xNN escapes) while PostgreSQL has text.
    """
    bt = base_type(pgtype)
    if bt in SCALAR_NORMALIZERS:
        fo, ft = SCALAR_NORMALIZERS[bt]
        try:
            a = fo(ours)
        except (ValueError, IndexError) as e:
            return "cannot parse ours as %s (%s)" % (bt, e)
        try:
            b = ft(theirs)
        except (ValueError, IndexError) as e:
            return "cannot parse theirs as %s (%s)" % (bt, e)
        if a == b:
            return None
        if us_round_variants(a, b):
            return None
        return "differs"
    if bt in ("json", "jsonb"):
        try:
            j = json.loads(ours)
        except ValueError as e:
            return "ours is not JSON (%s)" % e
        # A DuckDB JSON-typed column renders as JSON text
        try:
            jt = json.loads(theirs)
            if _json_equal(j, jt):
                return None
        except ValueError:
            pass
        try:
            d = parse_duck_nested(theirs)
        except ValueError as e:
            return "cannot parse theirs as DuckDB nested text (%s)" % e
        r = nested_matches_json(d, j)
        return r and ("differs at " + r)
    if bt in ("text", "character varying", "character", "name", "\"char\""):
        if ours == theirs:
            return None
        if bt == "character" and ours.rstrip(" ") == theirs.rstrip(" "):
            return None
        if duck_blob and ours.encode("utf-8") == decode_duckdb_blob(theirs):
            return None
        return "differs"
    # any other type: exact text
    return None if ours == theirs else "differs"


def _json_equal(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or _num_text_equal(repr(a), repr(b))
    return a == b


def compare_array(elemtype, ours, theirs, duck_blob=False):
    """PostgreSQL array literal vs DuckDB list text, element-wise by type."""
    try:
        a = parse_pg_array(ours)
    except (ValueError, IndexError) as e:
        return "cannot parse ours as array (%s)" % e
    try:
        d = parse_duck_nested(theirs)
    except ValueError as e:
        return "cannot parse theirs as list (%s)" % e
    return _cmp_arr(elemtype, a, d, "", duck_blob)


def _cmp_arr(elemtype, a, d, path, duck_blob):
    if isinstance(a, list):
        if not isinstance(d, list):
            return "%s: array vs %r" % (path or "value", d)
        if len(a) != len(d):
            # PostgreSQL has no empty sub-arrays and needs rectangular
            # multi-dimensional arrays; report the shape difference.
            return "%s: length %d vs %d" % (path or "array", len(a), len(d))
        for i, (x, y) in enumerate(zip(a, d)):
            r = _cmp_arr(elemtype, x, y, "%s[%d]" % (path, i + 1), duck_blob)
            if r:
                return r
        return None
    if a is None:
        return None if (isinstance(d, Atom) and d.is_null) else "%s: NULL vs %r" % (path, d)
    if not isinstance(d, Atom) or d.is_null:
        return "%s: %r vs %r" % (path, a, d)
    r = compare_scalar(elemtype, a, d.text, duck_blob)
    return r and "%s: %r vs %r (%s)" % (path, a, d.text, r)


def compare_cell(pgtype, elemtype, ours, theirs, duck_blob=False, geo=False):
    """Compare two Cells of a column; None if equal else a reason.

    geo: the column is GEOMETRY/GEOGRAPHY (DuckDB prints WKT).
    """
    if ours.is_null or theirs.is_null:
        if ours.is_null and theirs.is_null:
            return None
        return "NULL vs value" if ours.is_null else "value vs NULL"
    if geo and not elemtype:
        return compare_geometry(pgtype, ours.text, theirs.text)
    if elemtype:
        return compare_array(elemtype, ours.text, theirs.text, duck_blob)
    return compare_scalar(pgtype, ours.text, theirs.text, duck_blob)


# --------------------------------------------------------------------------
# geometry: DuckDB renders GEOMETRY/GEOGRAPHY as WKT; PostgreSQL may hold the
# file's WKB (bytea) or WKT (text).  Both are parsed into the same structure:
# (type, dims, body) where body is a coordinate tuple (POINT), a list of them
# (LINESTRING), nested lists, or a list of child geometries (MULTI*,
# GEOMETRYCOLLECTION); EMPTY is an empty body.  Coordinates compare as
# doubles (NaN equal to NaN).

_GEO_TYPES = {1: "POINT", 2: "LINESTRING", 3: "POLYGON", 4: "MULTIPOINT",
              5: "MULTILINESTRING", 6: "MULTIPOLYGON", 7: "GEOMETRYCOLLECTION"}
_WKT_RE = re.compile(r"^\s*(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\b", re.I)


def _coord(vals):
    return tuple(("nan",) if math.isnan(v) else v for v in vals)


def parse_wkb(b):
    pos = [0]

    def geom():
        bo = b[pos[0]]
        pos[0] += 1
        e = "<" if bo == 1 else ">"

        def u32():
            v = struct.unpack_from(e + "I", b, pos[0])[0]
            pos[0] += 4
            return v

        def f64(n):
            v = struct.unpack_from(e + "%dd" % n, b, pos[0])
            pos[0] += 8 * n
            return v

        t = u32()
        hz = hm = False
        if t & 0x20000000:  # EWKB SRID
            u32()
        if t & 0x80000000:
            hz = True
        if t & 0x40000000:
            hm = True
        t &= 0x0FFFFFFF
        base = t % 1000
        k = t // 1000
        hz = hz or k in (1, 3)
        hm = hm or k in (2, 3)
        dims = "XY" + ("Z" if hz else "") + ("M" if hm else "")
        nd = len(dims)
        name = _GEO_TYPES.get(base)
        if name is None:
            raise ValueError("unknown WKB type %d" % t)
        if name == "POINT":
            c = f64(nd)
            body = [] if all(math.isnan(x) for x in c) else [_coord(c)]
        elif name == "LINESTRING":
            body = [_coord(f64(nd)) for _ in range(u32())]
        elif name == "POLYGON":
            body = []
            for _ in range(u32()):
                body.append([_coord(f64(nd)) for _ in range(u32())])
        else:
            body = [geom() for _ in range(u32())]
        return (name, dims, body)

    g = geom()
    if pos[0] != len(b):
        raise ValueError("trailing bytes after WKB geometry")
    return g


def parse_wkt(s):
    toks = re.findall(r"[A-Za-z]+|\(|\)|,|[^\s(),]+", s)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take(x=None):
        t = toks[pos[0]]
        if x is not None and t.upper() != x:
            raise ValueError("WKT: expected %s, got %s" % (x, t))
        pos[0] += 1
        return t

    def coords_list(nd):
        take("(")
        out = []
        while True:
            if peek() == "(":  # MULTIPOINT ((1 2), (3 4))
                take("(")
                out.append(coord(nd))
                take(")")
            else:
                out.append(coord(nd))
            if peek() == ",":
                take(",")
                continue
            take(")")
            return out

    def coord(nd):
        vals = []
        while peek() not in (",", ")", None):
            vals.append(_float_token(take()))
        if len(vals) != nd:
            raise ValueError("WKT: %d coordinates, expected %d" % (len(vals), nd))
        return _coord(vals)

    def geom():
        name = take().upper()
        if name not in _GEO_TYPES.values():
            raise ValueError("WKT: unknown type %s" % name)
        dims = "XY"
        if peek() and peek().upper() in ("Z", "M", "ZM"):
            dims += take().upper()
        nd = len(dims)
        if peek() and peek().upper() == "EMPTY":
            take()
            return (name, dims, [])
        if name == "POINT":
            take("(")
            c = coord(nd)
            take(")")
            body = [] if all(x == ("nan",) for x in c) else [c]
        elif name == "LINESTRING":
            body = coords_list(nd)
        elif name == "POLYGON":
            take("(")
            body = []
            while True:
                body.append(coords_list(nd))
                if peek() == ",":
                    take(",")
                    continue
                take(")")
                break
        elif name == "MULTIPOINT":
            body = [("POINT", dims, [c]) for c in coords_list(nd)]
        else:
            take("(")
            body = []
            while True:
                if name == "GEOMETRYCOLLECTION":
                    body.append(geom())
                else:
                    child = {"MULTILINESTRING": "LINESTRING", "MULTIPOLYGON": "POLYGON"}[name]
                    if child == "LINESTRING":
                        body.append((child, dims, coords_list(nd)))
                    else:
                        take("(")
                        rings = []
                        while True:
                            rings.append(coords_list(nd))
                            if peek() == ",":
                                take(",")
                                continue
                            take(")")
                            break
                        body.append((child, dims, rings))
                if peek() == ",":
                    take(",")
                    continue
                take(")")
                break
        return (name, dims, body)

    g = geom()
    if pos[0] != len(toks):
        raise ValueError("WKT: trailing text")
    return g


def looks_like_wkt(s):
    return bool(_WKT_RE.match(s))


def compare_geometry(pgtype, ours, theirs):
    """DuckDB WKT vs PostgreSQL bytea (WKB) or text (WKT); None if equal."""
    try:
        t = parse_wkt(theirs)
    except (ValueError, IndexError, KeyError) as e:
        return "cannot parse theirs as WKT (%s)" % e
    try:
        if base_type(pgtype) == "bytea":
            o = parse_wkb(decode_pg_bytea(ours))
        else:
            o = parse_wkt(ours)
    except (ValueError, IndexError, KeyError, struct.error) as e:
        return "cannot parse ours as geometry (%s)" % e
    return None if o == t else "geometry differs"
