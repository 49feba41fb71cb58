#!/usr/bin/env python3
"""Live-server mutation fuzzer: corrupted Parquet files and Amudai shards
queried through a running server.

  live_fuzz.py --workdir DIR --server-log FILE [--seed N] [--budget SECONDS]
               [--iterations N] [--only I] [--timeout-ms MS] [--grace S]
               [--rss-mb MB] [--seeds DIR] [--keep DIR]

Inputs: every *.parquet of $PARQUET_TESTING_DIR (data/, bad_data/,
shredded_variant/), the shards of test/data/amudai/ (a root and its stripe
file) and shards this script writes with parquet_fdw_write_amudai.  Each
iteration takes one input, applies one mutation (bit flips, byte overwrites,
a Thrift field of the Parquet footer or of a page header -- found from the
chunk offsets parquet_metadata reports -- set to a huge, negative or zero
value, an Amudai length word set likewise, a truncation) and runs, in one
fresh backend with statement_timeout, a full scan, count(*), a filter, an
aggregate, a GROUP BY, the inspection functions and
parquet_create_foreign_table over the mutant.

Errors are the expected outcome.  Findings (each fails the run) are:
  crash  the server log shows a backend killed by a signal or a restart, or
         psql lost its connection;
  hang   a query still running timeout + grace after it started;
  rss    the backend's peak resident memory (VmHWM) above --rss-mb.
Iteration I's input and mutation come from random.Random("SEED:I") alone,
so "--seed S --only I" replays a finding whatever the budget was.
Seeds (--seeds, test/live/seeds/): regression inputs replayed first, each
queried like a mutant; NAME.base, when present, names the file whose
columns the table takes (a path relative to the repository or to
$PARQUET_TESTING_DIR).
The last line is "live-fuzz: N passed, N failed" (one check per input run).
"""
import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from livelib import (LOST_CONNECTION, ServerLog, proc_status_kb, psql,  # noqa: E402
                     sql_ident, sql_literal)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVER = "live_fuzz_srv"

# Values a corrupted length or count field takes: zero, one, the sign
# boundaries of 32 and 64 bits, and "all ones".
INTERESTING = [0, 1, -1, 0x7f, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0x80000000,
               0xffffffff, -0x80000000, 1 << 32, 1 << 40, (1 << 63) - 1, -(1 << 63)]

# Shards written at setup by parquet_fdw_write_amudai: a few stripes, the
# types the writer knows, nulls, repeated strings, lists.
WRITTEN_SHARDS = [
    ("SELECT g AS id, g % 7 AS k, (g * 1.5)::float8 AS f, md5(g::text) AS s, "
     "(g % 3 = 0) AS b, CASE WHEN g % 5 = 0 THEN NULL ELSE g END AS n, "
     "DATE '2020-01-01' + g AS d FROM generate_series(1, 3000) g", 1000),
    ("SELECT (ARRAY['red','green','blue'])[g % 3 + 1] AS color, g::bigint * 1000003 AS big, "
     "ARRAY[g, g + 1] AS arr, g::numeric(12,2) / 7 AS dec, "
     "TIMESTAMP '2021-06-01' + g * INTERVAL '1 minute' AS ts FROM generate_series(1, 2000) g", 512),
    ("SELECT 42 AS a", 65536),
]


# ---------------------------------------------------------------- structure
def read_varint(buf, pos):
    v = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80 or shift > 70:
            return v, pos


def write_varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    v &= (1 << 64) - 1
    if v >> 63:
        v -= 1 << 64
    return ((v << 1) ^ (v >> 63)) & ((1 << 64) - 1)


def thrift_fields(buf, pos, limit):
    """Positions of the varints of a Thrift compact struct at pos: ints
    ("int", zigzag) and lengths or element counts ("len").  Best effort: a
    walk that runs off the bytes returns what it found until then."""
    found = []

    def value(pos, t, depth):
        if depth > 12 or pos >= limit:
            raise IndexError
        if t in (1, 2):
            return pos
        if t == 3:
            return pos + 1
        if t in (4, 5, 6):
            start = pos
            _, pos = read_varint(buf, pos)
            found.append(("int", start, pos))
            return pos
        if t == 7:
            return pos + 8
        if t == 8:
            start = pos
            n, pos = read_varint(buf, pos)
            found.append(("len", start, pos))
            return pos + n
        if t in (9, 10):
            head = buf[pos]
            pos += 1
            n, et = head >> 4, head & 0x0f
            if n == 15:
                start = pos
                n, pos = read_varint(buf, pos)
                found.append(("len", start, pos))
            else:
                found.append(("smalllen", pos - 1, pos))
            for _ in range(min(n, 100000)):
                pos = value(pos, et, depth + 1)
            return pos
        if t == 11:
            start = pos
            n, pos = read_varint(buf, pos)
            found.append(("len", start, pos))
            if n:
                kv = buf[pos]
                pos += 1
                for _ in range(min(n, 100000)):
                    pos = value(pos, kv >> 4, depth + 1)
                    pos = value(pos, kv & 0x0f, depth + 1)
            return pos
        if t == 12:
            return struct(pos, depth + 1)
        raise IndexError

    def struct(pos, depth):
        while True:
            if pos >= limit:
                raise IndexError
            head = buf[pos]
            pos += 1
            if head == 0:
                return pos
            if head >> 4 == 0:
                _, pos = read_varint(buf, pos)
            pos = value(pos, head & 0x0f, depth)

    try:
        struct(pos, 0)
    except IndexError:
        pass
    return [f for f in found if f[2] <= limit]


def parquet_footer_start(data):
    if len(data) < 12 or data[-4:] != b"PAR1":
        return None
    n = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - n
    return start if 4 <= start < len(data) - 8 else None


def _load_xxh3():
    """XXH3_64bits from the libxxhash the extension links (a build
    dependency); None without it (message mutations then fall back)."""
    import ctypes
    import ctypes.util
    for name in ("libxxhash.so.0", ctypes.util.find_library("xxhash")):
        if not name:
            continue
        try:
            fn = ctypes.CDLL(name).XXH3_64bits
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_uint64
        fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        return fn
    return None


XXH3 = _load_xxh3()


def checksum32(b):
    h = XXH3(bytes(b), len(b))
    return (h ^ (h >> 32)) & 0xffffffff


def u32(data, p):
    return int.from_bytes(data[p:p + 4], "little")


def envelope_at(data, p):
    """Payload length of a checksummed Amudai envelope at p, or None."""
    if p < 0 or p + 8 > len(data):
        return None
    n = u32(data, p)
    if p + 8 + n > len(data) or checksum32(data[p + 4:p + 4 + n]) != u32(data, p + 4 + n):
        return None
    return n


def proto_fields(buf, start, end, depth, out):
    """Numbers of a protobuf message in buf[start:end], nested messages
    and packed fixed64 arrays included, as (start, end, value, kind) with
    kind "varint", "fixed"; False when the bytes are not one message."""
    pos = start
    try:
        while pos < end:
            key, pos = read_varint(buf, pos)
            wt = key & 7
            if key >> 3 == 0:
                return False
            if wt == 0:
                s = pos
                v, pos = read_varint(buf, pos)
                out.append((s, pos, v, "varint"))
            elif wt in (1, 5):
                w = 8 if wt == 1 else 4
                out.append((pos, pos + w, int.from_bytes(buf[pos:pos + w], "little"), "fixed"))
                pos += w
            elif wt == 2:
                s = pos
                n, pos = read_varint(buf, pos)
                if pos + n > end:
                    return False
                out.append((s, pos, n, "varint"))
                sub = []
                if depth < 8 and n and proto_fields(buf, pos, pos + n, depth + 1, sub):
                    out.extend(sub)
                elif n and n % 8 == 0 and n <= 8 * 4096:   # packed fixed64
                    out.extend((q, q + 8, int.from_bytes(buf[q:q + 8], "little"), "fixed")
                               for q in range(pos, pos + n, 8))
                pos += n
            else:
                return False
        return pos == end
    except IndexError:
        return False


def amudai_envelopes(data):
    """Envelopes reachable from a root shard's ShardDirectory: every varint
    of a decoded message that points at a valid envelope is followed."""
    size = len(data)
    if XXH3 is None or size < 28:
        return []
    end = size - 8
    first = end - 4 - (u32(data, end - 4) + 8)
    todo, seen = [first], {}
    while todo and len(seen) < 4096:
        p = todo.pop()
        if p in seen:
            continue
        n = envelope_at(data, p)
        if n is None:
            continue
        fields = []
        proto_fields(data, p + 4, p + 4 + n, 0, fields)
        seen[p] = (n, fields)
        todo.extend(f[2] for f in fields if 0 <= f[2] < size and f[2] not in seen)
    return [(p, n, f) for p, (n, f) in sorted(seen.items())]


# ---------------------------------------------------------------- mutations
def set_field(data, field, v):
    kind, start, end = field
    if kind == "int":
        enc = write_varint(zigzag(v))
    elif kind == "len":
        enc = write_varint(v)
    else:  # a list header with its count in the high nibble
        return data[:start] + bytes([0xf0 | (data[start] & 0x0f)]) + write_varint(v) + data[end:]
    return data[:start] + enc + data[end:]


def mutate(rng, data, kind, offsets):
    """Returns (mutant bytes, description)."""
    size = len(data)
    if size == 0:
        return data + bytes([rng.randrange(256)]), "append 1 byte"
    b = bytearray(data)
    if kind == "bitflip":
        n = rng.choice([1, 1, 2, 4, 8])
        pos = [rng.randrange(size) for _ in range(n)]
        for p in pos:
            b[p] ^= 1 << rng.randrange(8)
        return bytes(b), "flip %d bit(s) at %s" % (n, pos[:4])
    if kind == "overwrite":
        n = rng.choice([1, 2, 4, 8, 16, 32])
        p = rng.randrange(size)
        fill = rng.choice(["random", "zero", "ff"])
        for i in range(p, min(size, p + n)):
            b[i] = rng.randrange(256) if fill == "random" else (0 if fill == "zero" else 0xff)
        return bytes(b), "overwrite %d %s byte(s) at %d" % (n, fill, p)
    if kind == "word":
        width = rng.choice([4, 8])
        p = rng.randrange(max(1, size - width + 1))
        v = rng.choice(INTERESTING + [size, size + 1, size - p])
        b[p:p + width] = (v & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        return bytes(b[:size]), "u%d at %d := %d" % (8 * width, p, v)
    if kind == "truncate":
        fs = parquet_footer_start(data)
        cands = [0, 4, 8, 12, size // 2, size - 1, size - 8, rng.randrange(size)]
        if fs:
            cands += [fs, fs + 1, size - 9]
        cands += [o for o in offsets if 0 < o < size]
        n = max(0, rng.choice(cands))
        return data[:n], "truncate to %d of %d bytes" % (n, size)
    if kind == "footer":
        fs = parquet_footer_start(data)
        start = fs if fs is not None else max(0, size - 256)
        n = rng.choice([1, 2, 4, 8])
        p = rng.randrange(start, size)
        for i in range(p, min(size, p + n)):
            b[i] = rng.randrange(256)
        return bytes(b), "footer overwrite %d byte(s) at %d (footer at %d)" % (n, p, start)
    if kind == "footer_len":
        v = rng.choice(INTERESTING + [size, size - 8, size - 7])
        b[size - 8:size - 4] = (v & 0xffffffff).to_bytes(4, "little")
        return bytes(b), "footer length := %d" % v
    if kind == "footer_field":
        fs = parquet_footer_start(data)
        fields = thrift_fields(data, fs, size - 8) if fs is not None else []
        if not fields:
            return mutate(rng, data, "footer", offsets)
        f = rng.choice(fields)
        v = rng.choice(INTERESTING)
        return set_field(data, f, v), "footer %s field at %d := %d" % (f[0], f[1], v)
    if kind in ("page_field", "page_overwrite"):
        offs = [o for o in offsets if 0 <= o < size]
        if not offs:
            return mutate(rng, data, "footer_field", offsets)
        o = rng.choice(offs)
        if kind == "page_overwrite":
            p = o + rng.randrange(24)
            n = rng.choice([1, 2, 4])
            for i in range(p, min(size, p + n)):
                b[i] = rng.randrange(256)
            return bytes(b), "page header at %d: %d byte(s) at %d" % (o, n, p)
        fields = thrift_fields(data, o, min(size, o + 4096))
        if not fields:
            return mutate(rng, data, "page_overwrite", offsets)
        f = rng.choice(fields)
        v = rng.choice(INTERESTING)
        return set_field(data, f, v), "page header at %d: %s field at %d := %d" % (o, f[0], f[1], v)
    if kind == "amudai_len":
        # the two copies of the ShardDirectory length, or any u32 that reads
        # as the length of an envelope ending inside the file
        cands = []
        if size >= 28:
            cands.append(size - 12)
            L = int.from_bytes(data[size - 12:size - 8], "little")
            env = size - 12 - (L + 8)
            if 0 <= env < size:
                cands.append(env)
        for _ in range(64):
            p = rng.randrange(max(1, size - 4))
            n = int.from_bytes(data[p:p + 4], "little")
            if 0 < n < size and p + 8 + n <= size:
                cands.append(p)
        if not cands:
            return mutate(rng, data, "word", offsets)
        p = rng.choice(cands)
        v = rng.choice(INTERESTING + [size, size - p])
        b[p:p + 4] = (v & 0xffffffff).to_bytes(4, "little")
        return bytes(b), "length word at %d := %d" % (p, v)
    if kind == "amudai_message":
        # a field of a metadata message, checksum made valid again, so the
        # value reaches the code that uses it; the varint keeps its width
        # (padded), so no other offset moves
        envs = amudai_envelopes(data)
        if not envs:
            return mutate(rng, data, "amudai_len", offsets)
        p, n, fields = rng.choice(envs)
        if fields and rng.random() < 0.8:
            fs, fe, old, fkind = rng.choice(fields)
            width = fe - fs
            v = rng.choice(INTERESTING + [old + 1, old - 1, old * 2, size, size + 1]) & ((1 << 64) - 1)
            if fkind == "fixed":
                v &= (1 << (8 * width)) - 1
                b[fs:fe] = v.to_bytes(width, "little")
            else:
                v = min(v, (1 << (7 * width)) - 1)
                b[fs:fe] = bytearray((v >> (7 * i)) & 0x7f | (0x80 if i < width - 1 else 0)
                                     for i in range(width))
            desc = "message at %d: %s at %d %d := %d" % (p, fkind, fs, old, v)
        else:
            q = p + 4 + rng.randrange(max(1, n))
            for i in range(q, min(p + 4 + n, q + rng.choice([1, 2, 4]))):
                b[i] = rng.randrange(256)
            desc = "message at %d: bytes at %d" % (p, q)
        b[p + 4 + n:p + 8 + n] = checksum32(b[p + 4:p + 4 + n]).to_bytes(4, "little")
        return bytes(b), desc + " (checksum fixed)"
    raise ValueError(kind)


PARQUET_KINDS = ["bitflip", "bitflip", "overwrite", "word", "truncate", "footer",
                 "footer_len", "footer_field", "footer_field", "page_field",
                 "page_field", "page_overwrite"]
AMUDAI_KINDS = ["bitflip", "overwrite", "word", "truncate", "footer", "amudai_len",
                "amudai_len", "amudai_message", "amudai_message", "amudai_message"]


# ---------------------------------------------------------------- inputs
class Input:
    """One file to mutate, in its own folder (with the stripe files a root
    shard refers to), behind one foreign table."""

    def __init__(self, idx, kind, label, files, main):
        self.idx = idx
        self.kind = kind            # "parquet" or "amudai"
        self.label = label
        self.files = files          # name -> original bytes
        self.main = main            # the name the table reads
        self.table = "lf_t%d" % idx
        self.dir = None
        self.offsets = []           # chunk and page-index offsets (Parquet)
        self.queries = []

    def path(self, name=None):
        return os.path.join(self.dir, name or self.main)

    def restore(self):
        for name, data in self.files.items():
            with open(self.path(name), "wb") as f:
                f.write(data)


def column_queries(table, cols, path, kind):
    t = sql_ident(table)
    qs = ["SELECT count(*) FROM %s" % t,
          "SELECT count(*), sum(length(x::text)) FROM %s x" % t]
    pick = None
    for name, typ in cols:
        if not typ.endswith("]") and re.match(r"(smallint|integer|bigint|real|double|numeric|date|timestamp|text|character|boolean)", typ):
            pick = (name, typ)
            break
    if pick:
        c = sql_ident(pick[0])
        typ = pick[1]
        if typ.startswith(("text", "character")):
            const = "'m'"
        elif typ.startswith(("date", "timestamp")):
            const = "'2000-01-01'"
        elif typ == "boolean":
            const = "false"
        else:
            const = "0"
        qs.append("SELECT count(*) FROM %s WHERE %s > %s" % (t, c, const))
        qs.append("SELECT count(*) FROM %s WHERE %s IS NULL" % (t, c))
        if typ == "boolean":
            qs.append("SELECT bool_and(%s), bool_or(%s), count(%s) FROM %s" % (c, c, c, t))
        else:
            agg = "min(%s), max(%s), count(%s)" % (c, c, c)
            if re.match(r"(smallint|integer|bigint|real|double|numeric)", typ):
                agg += ", sum(%s), avg(%s)" % (c, c)
            qs.append("SELECT %s FROM %s" % (agg, t))
            qs.append("SELECT %s, count(*) FROM %s WHERE %s > %s GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3"
                      % (c, t, c, const))
    lit = sql_literal(path)
    if kind == "parquet":
        qs += ["SELECT count(*), sum(length(x::text)) FROM parquet_schema(%s) x" % lit,
               "SELECT count(*), sum(length(x::text)) FROM parquet_metadata(%s) x" % lit,
               "SELECT count(*), sum(length(x::text)) FROM parquet_file_metadata(%s) x" % lit,
               "SELECT count(*), sum(length(x::text)) FROM parquet_kv_metadata(%s) x" % lit]
    qs += ["BEGIN; SELECT parquet_create_foreign_table('lf_probe', %s, %s); "
           "SELECT count(*) FROM lf_probe; ROLLBACK" % (sql_literal(SERVER), lit)]
    return qs


def prepare_input(inp, workdir):
    inp.dir = os.path.join(workdir, "in%d" % inp.idx)
    os.makedirs(inp.dir, exist_ok=True)
    inp.restore()
    path = inp.path()
    t = sql_ident(inp.table)
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t"], capture_output=True, text=True, input=(
        "SELECT parquet_create_foreign_table(%s, %s, %s);\n" % (
            sql_literal(inp.table), sql_literal(SERVER), sql_literal(path))), timeout=120)
    if r.returncode != 0 or "ERROR" in r.stderr:
        # A file the extension cannot read whole still gets a table: count(*)
        # and the inspection functions walk its footer.
        psql("CREATE FOREIGN TABLE %s () SERVER %s OPTIONS (filename %s);"
             % (t, SERVER, sql_literal(path)), check=False)
    cols = [tuple(l.split("|", 1)) for l in psql(
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;"
        % sql_literal(inp.table), check=False).splitlines() if "|" in l]
    inp.queries = column_queries(inp.table, cols, path, inp.kind)
    if inp.kind == "parquet":
        out = psql("SELECT data_page_offset, dictionary_page_offset, column_index_offset, "
                   "offset_index_offset FROM parquet_metadata(%s);" % sql_literal(path), check=False)
        offs = set()
        for line in out.splitlines():
            for v in line.split("|"):
                if v.strip().lstrip("-").isdigit():
                    offs.add(int(v))
        inp.offsets = sorted(offs)


def collect_inputs(corpus, workdir):
    inputs = []
    if corpus and os.path.isdir(corpus):
        for sub in ("data", "bad_data", "shredded_variant"):
            d = os.path.join(corpus, sub)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if name.endswith(".parquet"):
                    with open(os.path.join(d, name), "rb") as f:
                        inputs.append(Input(len(inputs), "parquet", "%s/%s" % (sub, name),
                                            {"f.parquet": f.read()}, "f.parquet"))
    am = os.path.join(ROOT, "test", "data", "amudai")
    if os.path.isdir(am):
        stripes = {n: open(os.path.join(am, n), "rb").read()
                   for n in sorted(os.listdir(am)) if n.endswith(".amudai.stripe")}
        for name in sorted(os.listdir(am)):
            if name.endswith(".amudai.shard"):
                files = dict(stripes)
                files[name] = open(os.path.join(am, name), "rb").read()
                inputs.append(Input(len(inputs), "amudai", "test/data/amudai/" + name, files, name))
    wdir = os.path.join(workdir, "written")
    os.makedirs(wdir, exist_ok=True)
    os.chmod(wdir, 0o777)  # the server writes these shards
    for k, (query, stripe_rows) in enumerate(WRITTEN_SHARDS):
        p = os.path.join(wdir, "w%d.amudai.shard" % k)
        psql("SELECT parquet_fdw_write_amudai(%s, %s, %d);" % (sql_literal(query), sql_literal(p), stripe_rows))
        with open(p, "rb") as f:
            inputs.append(Input(len(inputs), "amudai", "written shard %d" % k,
                                {"w.amudai.shard": f.read()}, "w.amudai.shard"))
    return inputs


# ---------------------------------------------------------------- one run
class Result:
    def __init__(self):
        self.finding = None     # (kind, detail)
        self.hwm_kb = None
        self.errors = collections.Counter()
        self.queries = 0


def run_session(queries, args, slog):
    """Runs the queries in one fresh backend; watches it for a hang and for
    its memory; then reads the server log for a crash."""
    res = Result()
    lines = ["\\set VERBOSITY verbose", "\\set SHOW_CONTEXT never",
             "SET client_min_messages = warning;",
             "SET statement_timeout = '%dms';" % args.timeout_ms,
             "SELECT 'pid ' || pg_backend_pid();"]
    for i, q in enumerate(queries):
        lines.append("\\echo @@q %d" % i)
        lines.append(q + ";")
    lines.append("\\echo @@q end")
    lines.append("SELECT 'hwm ' || substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s*(\\d+)');")
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(["psql", "-X", "-q", "-A", "-t"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=err, text=True,
                             errors="replace")
        state = {"pid": None, "q": None, "since": time.monotonic(), "hwm": None, "done": False}

        def reader():
            for line in p.stdout:
                line = line.rstrip("\n")
                if line.startswith("pid "):
                    state["pid"] = int(line[4:])
                elif line.startswith("@@q "):
                    state["q"] = line[4:]
                    state["since"] = time.monotonic()
                elif line.startswith("hwm ") and line[4:].isdigit():
                    state["hwm"] = int(line[4:])
            state["done"] = True

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        p.stdin.write("\n".join(lines) + "\n")
        p.stdin.close()
        limit_s = args.timeout_ms / 1000.0 + args.grace
        peak = 0
        while p.poll() is None:
            time.sleep(0.05)
            pid = state["pid"]
            if pid:
                rss = proc_status_kb(pid, "VmHWM")
                if rss:
                    peak = max(peak, rss)
                if peak > 4 * args.rss_mb * 1024 and res.finding is None:
                    # protect the machine: stop the query now
                    res.finding = ("rss", "backend above %d MB while running query %s"
                                   % (peak // 1024, state["q"]))
                    stop_backend(pid)
            q = state["q"]
            if q not in (None, "end") and time.monotonic() - state["since"] > limit_s and res.finding is None:
                res.finding = ("hang", "query %s still running %.0f s after it started" % (q, limit_s))
                if pid:
                    res.finding = ("hang", res.finding[1] + "; " + stop_backend(pid))
                p.kill()
            if time.monotonic() - state["since"] > limit_s + 30:
                p.kill()  # psql itself stuck
        th.join(5)
        err.seek(0)
        errtext = err.read().decode("utf-8", "replace")
    hwm = state["hwm"] or peak
    res.hwm_kb = hwm
    q = state["q"]
    res.queries = len(queries) if q == "end" else (int(q) + 1 if q and q.isdigit() else 0)
    for m in re.finditer(r"ERROR:\s+([0-9A-Z]{5}): ([^\n]*)", errtext):
        res.errors[m.group(1)] += 1
    crash = slog.new_crash_lines()
    if crash:
        res.finding = ("crash", "query %s; server log: %s" % (q, " | ".join(crash[:4])))
    elif res.finding is None and LOST_CONNECTION.search(errtext):
        res.finding = ("crash", "query %s; psql: %s" % (q, LOST_CONNECTION.search(errtext).group(0)))
    elif res.finding is None and hwm and hwm > args.rss_mb * 1024:
        res.finding = ("rss", "backend VmHWM %d MB > %d MB" % (hwm // 1024, args.rss_mb))
    if res.finding and res.finding[0] == "crash":
        wait_server()
        time.sleep(1)
        slog.new_crash_lines()  # the restart's own lines belong to this crash
    return res


def stop_backend(pid):
    """Cancel, then terminate; says which worked."""
    for fn in ("pg_cancel_backend", "pg_terminate_backend"):
        psql("SELECT %s(%d);" % (fn, pid), check=False, timeout=30)
        for _ in range(50):
            if proc_status_kb(pid, "VmRSS") is None:
                return "%s ended it" % fn
            time.sleep(0.1)
    return "neither cancel nor terminate ended backend %d" % pid


def wait_server():
    for _ in range(60):
        if subprocess.run(["psql", "-X", "-qAt", "-c", "SELECT 1"], capture_output=True).returncode == 0:
            return
        time.sleep(1)


def self_test(args):
    """The detectors must fire: a backend killed by SIGSEGV (from outside:
    SQL cannot crash a backend), a query that outlives statement_timeout
    (it turns the timeout off itself), a query holding more than the
    memory bound."""
    import signal
    slog = ServerLog(args.server_log)
    slog.raise_level()
    bound = args.rss_mb
    # (finding, queries, kill it from outside, grace): the memory case may
    # be slow on a loaded machine, so it neither times out nor counts as a
    # hang
    cases = [
        ("crash", ["SELECT pg_sleep(20)"], True, 30),
        ("hang", ["SET statement_timeout = 0", "SELECT pg_sleep(%d)" % (args.timeout_ms // 1000 + 8)], False, 2),
        ("rss", ["SET statement_timeout = 0",
                 "SELECT length(repeat(repeat('x', 1 << 20), %d))" % (bound + 64)], False, 120),
    ]
    passed = failed = 0
    try:
        for want, queries, kill, grace in cases:
            args.grace = grace
            killer = None
            if kill:
                def killer_fn():
                    # the newest backend running pg_sleep is the session's
                    for _ in range(100):
                        out = psql("SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(20)%';",
                                   check=False).split()
                        if out:
                            os.kill(int(out[0]), signal.SIGSEGV)
                            return
                        time.sleep(0.1)
                killer = threading.Thread(target=killer_fn, daemon=True)
                killer.start()
            res = run_session(queries, args, slog)
            if killer:
                killer.join(15)
            got = res.finding[0] if res.finding else "nothing"
            ok = got == want
            print("live-fuzz self-test: %s %s (%s)" % (want, "caught" if ok else "MISSED",
                                                       res.finding[1] if res.finding else got))
            passed += ok
            failed += not ok
    finally:
        slog.restore_level()
    print("live-fuzz self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--server-log", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=180)
    ap.add_argument("--iterations", type=int, default=0, help="stop after N (0: budget only)")
    ap.add_argument("--only", type=int, default=None, help="run iteration I alone")
    ap.add_argument("--timeout-ms", type=int, default=2000)
    ap.add_argument("--grace", type=float, default=15)
    ap.add_argument("--amudai-share", type=float, default=0.3, help="share of iterations on shards")
    ap.add_argument("--rss-mb", type=int, default=256)
    ap.add_argument("--seeds", default=os.path.join(ROOT, "test", "live", "seeds"))
    ap.add_argument("--keep", default=None, help="copy each finding's mutant here")
    ap.add_argument("--self-test", action="store_true",
                    help="only check that a crash, a hang and a memory peak are caught")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args)
    corpus = os.environ.get("PARQUET_TESTING_DIR")
    t0 = time.monotonic()

    slog = ServerLog(args.server_log)
    slog.raise_level()
    passed = failed = 0
    findings = []
    stats = {"mutants": 0, "queries": 0, "sessions_with_error": 0, "max_hwm_kb": 0, "max_hwm_what": ""}
    errors = collections.Counter()
    kinds = collections.Counter()
    try:
        psql("CREATE EXTENSION IF NOT EXISTS parquet_fdw;\n"
             "DROP SERVER IF EXISTS %s CASCADE;\n"
             "CREATE SERVER %s FOREIGN DATA WRAPPER parquet_fdw;\n" % (SERVER, SERVER))
        inputs = collect_inputs(corpus, args.workdir)
        for inp in inputs:
            prepare_input(inp, args.workdir)
        print("live-fuzz: %d inputs (%d Parquet, %d Amudai), %d queries each, seed %d, budget %.0f s"
              % (len(inputs), sum(i.kind == "parquet" for i in inputs),
                 sum(i.kind == "amudai" for i in inputs),
                 max(len(i.queries) for i in inputs), args.seed, args.budget), flush=True)

        def account(res, what, data):
            nonlocal passed, failed
            stats["queries"] += res.queries
            if (res.hwm_kb or 0) > stats["max_hwm_kb"]:
                stats["max_hwm_kb"] = res.hwm_kb
                stats["max_hwm_what"] = what
            if res.errors:
                stats["sessions_with_error"] += 1
            errors.update(res.errors)
            if res.finding:
                failed += 1
                line = "FINDING %s: %s -- %s" % (res.finding[0], what, res.finding[1])
                findings.append(line)
                print(line, flush=True)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", what)[:120]
                    with open(os.path.join(args.keep, name), "wb") as f:
                        f.write(data)
            else:
                passed += 1

        # regression seeds first
        if os.path.isdir(args.seeds) and args.only is None:
            for name in sorted(os.listdir(args.seeds)):
                if name.endswith((".base", ".md")) or name.startswith("."):
                    continue
                with open(os.path.join(args.seeds, name), "rb") as f:
                    data = f.read()
                kind = "amudai" if ".amudai." in name else "parquet"
                base = os.path.join(args.seeds, name + ".base")
                files = {"seed" + (".amudai.shard" if kind == "amudai" else ".parquet"): data}
                main_name = next(iter(files))
                if os.path.exists(base):
                    rel = open(base).read().strip()
                    src = next((p for p in (os.path.join(ROOT, rel), os.path.join(corpus or "", rel))
                                if os.path.isfile(p)), None)
                    if src:
                        files[main_name] = open(src, "rb").read()
                inp = Input(len(inputs) + 1000, kind, "seed " + name, files, main_name)
                prepare_input(inp, args.workdir)
                with open(inp.path(), "wb") as f:
                    f.write(data)
                res = run_session(inp.queries, args, slog)
                account(res, "seed %s" % name, data)
                stats["mutants"] += 1

        i = args.only if args.only is not None else 0
        while True:
            if args.only is None:
                if args.iterations and i >= args.iterations:
                    break
                if time.monotonic() - t0 > args.budget:
                    break
            rng = random.Random("%d:%d" % (args.seed, i))
            inp = (rng.choice([x for x in inputs if x.kind == "amudai"]) if rng.random() < args.amudai_share
                   else rng.choice([x for x in inputs if x.kind == "parquet"] or inputs))
            target = rng.choice(sorted(inp.files)) if inp.kind == "amudai" else inp.main
            kind = rng.choice(AMUDAI_KINDS if inp.kind == "amudai" else PARQUET_KINDS)
            mutant, desc = mutate(rng, inp.files[target], kind, inp.offsets)
            inp.restore()
            with open(inp.path(target), "wb") as f:
                f.write(mutant)
            kinds[kind] += 1
            res = run_session(inp.queries, args, slog)
            stats["mutants"] += 1
            account(res, "iteration %d (seed %d): %s, %s: %s" % (i, args.seed, inp.label, target, desc), mutant)
            inp.restore()
            if args.only is not None:
                break
            i += 1
    finally:
        slog.restore_level()

    elapsed = time.monotonic() - t0
    print("live-fuzz: %d mutants in %.0f s, %d queries, %d sessions ended with at least one error, "
          "peak backend VmHWM %d MB (bound %d MB)"
          % (stats["mutants"], elapsed, stats["queries"], stats["sessions_with_error"],
             stats["max_hwm_kb"] // 1024, args.rss_mb))
    print("live-fuzz: peak VmHWM at %s" % stats["max_hwm_what"])
    print("live-fuzz: mutations: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("live-fuzz: errors by SQLSTATE: " + ", ".join("%s %d" % kv for kv in errors.most_common()))
    print("live-fuzz: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
