#!/usr/bin/env python3
"""Independent check of VARIANT decoding against the corpus' own bytes.

Each parquet-testing shredded_variant/CASE_row-N.variant.bin holds the
Variant (metadata then value) that row N of CASE.parquet must read as.  This
script decodes those bytes with a small Python Variant decoder written from
VariantEncoding.md (not from src/parquet/variant.c) and compares the result,
type-strictly (numbers stay numbers, decimals exact, float at float4
precision, strings stay strings), with the jsonb parquet_fdw returns for
that row, including the files DuckDB cannot judge (cases 041, 131, 138, the
INVALID ones).

  PGHOST=... python3 test/conformance/check_variant_bin.py [--corpus DIR]

Connection: the usual libpq environment.  Prints one FAIL line per mismatch
and "variant.bin check: N passed, N failed"; exit status 1 on any failure.
"""
import argparse
import datetime as D
import decimal
import glob
import json
import os
import re
import struct
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = 'pf_variant_check_srv'

def le(b): return int.from_bytes(b, 'little')

def parse_md(b):
    h = b[0]; assert h & 15 == 1
    osz = ((h >> 6) & 3) + 1
    n = le(b[1:1+osz])
    offs = [le(b[1+osz+i*osz:1+osz+(i+1)*osz]) for i in range(n+1)]
    base = 1 + osz + (n+1)*osz
    keys = [b[base+offs[i]:base+offs[i+1]].decode() for i in range(n)]
    return keys, base + offs[-1]

EPOCH = D.datetime(1970, 1, 1)

def fmt_frac(frac, digits):
    s = str(frac).rjust(digits, '0').rstrip('0')
    return '.' + s if s else ''

def ts(v, per, tz):
    secs, frac = divmod(v, per)
    dt = EPOCH + D.timedelta(seconds=secs)
    return dt.strftime('%Y-%m-%dT%H:%M:%S') + fmt_frac(frac, 9 if per == 10**9 else 6) + ('+00:00' if tz else '')

def dec(v):
    # returns (value, p): compare decimals exactly
    return ('dec', v)

def decode(keys, b):
    bt = b[0] & 3; hdr = b[0] >> 2
    if bt == 1:
        return b[1:1+hdr].decode()
    if bt in (2, 3):
        if bt == 2:
            osz = (hdr & 3) + 1; isz = ((hdr >> 2) & 3) + 1; nsz = 4 if hdr & 16 else 1
        else:
            osz = (hdr & 3) + 1; isz = 0; nsz = 4 if hdr & 4 else 1
        n = le(b[1:1+nsz]); p = 1 + nsz
        ids = [le(b[p+i*isz:p+(i+1)*isz]) for i in range(n)]; p += n*isz
        offs = [le(b[p+i*osz:p+(i+1)*osz]) for i in range(n+1)]; p += (n+1)*osz
        vals = [decode(keys, b[p+offs[i]:]) for i in range(n)]
        if bt == 2:
            return {keys[ids[i]]: vals[i] for i in range(n)}
        return vals
    t = hdr; d = b[1:]
    if t == 0: return None
    if t == 1: return True
    if t == 2: return False
    if t in (3, 4, 5, 6):
        w = {3: 1, 4: 2, 5: 4, 6: 8}[t]
        return int.from_bytes(d[:w], 'little', signed=True)
    if t == 7: return ('f64', struct.unpack('<d', d[:8])[0])
    if t == 14: return ('f32', struct.unpack('<f', d[:4])[0])
    if t in (8, 9, 10):
        w = {8: 4, 9: 8, 10: 16}[t]; sc = d[0]
        return dec(decimal.Decimal(int.from_bytes(d[1:1+w], 'little', signed=True)).scaleb(-sc))
    if t == 11: return (D.date(1970, 1, 1) + D.timedelta(days=int.from_bytes(d[:4], 'little', signed=True))).isoformat()
    if t in (12, 13, 18, 19):
        v = int.from_bytes(d[:8], 'little', signed=True)
        return ts(v, 10**9 if t in (18, 19) else 10**6, t in (12, 18))
    if t == 15: n = le(d[:4]); return '\\x' + d[4:4+n].hex()
    if t == 16: n = le(d[:4]); return d[4:4+n].decode()
    if t == 17:
        v = le(d[:8]); s, f = divmod(v, 10**6)
        return '%02d:%02d:%02d' % (s // 3600, s // 60 % 60, s % 60) + fmt_frac(f, 6)
    if t == 20: return str(uuid.UUID(bytes=bytes(d[:16])))
    raise ValueError('type %d' % t)

def same(exp, got):
    if isinstance(exp, tuple):
        kind, v = exp
        if kind == 'dec':
            return isinstance(got, decimal.Decimal) and got == v
        if kind == 'f64':
            return isinstance(got, decimal.Decimal) and float(got) == v
        if kind == 'f32':
            return isinstance(got, decimal.Decimal) and struct.unpack('<f', struct.pack('<f', float(got)))[0] == v
    if isinstance(exp, bool) or exp is None:
        return got is exp
    if isinstance(exp, int):
        return isinstance(got, decimal.Decimal) and got == exp and got == got.to_integral_value()
    if isinstance(exp, str):
        return got == exp
    if isinstance(exp, list):
        return isinstance(got, list) and len(got) == len(exp) and all(same(a, b) for a, b in zip(exp, got))
    if isinstance(exp, dict):
        return isinstance(got, dict) and exp.keys() == got.keys() and all(same(exp[k], got[k]) for k in exp)
    return False

def psql(sql):
    return subprocess.run(['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql],
                          capture_output=True, text=True)


def ours(path):
    """The var column of every row, as COPY text (None for SQL NULL)."""
    p = psql("DROP FOREIGN TABLE IF EXISTS pf_variant_check_t;"
             "SELECT parquet_create_foreign_table('pf_variant_check_t', '%s', '%s') IS NULL;"
             "COPY (SELECT var::text FROM pf_variant_check_t) TO STDOUT;"
             % (SERVER, path.replace("'", "''")))
    lines = [l for l in p.stdout.splitlines() if l not in ('t', 'f')]
    return lines, p.stderr

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--corpus', default=os.environ.get('PARQUET_TESTING_DIR') or
                    os.path.normpath(os.path.join(HERE, '..', '..', '..', 'shared', 'parquet-testing')))
    args = ap.parse_args()
    corpus = os.path.join(args.corpus, 'shredded_variant')
    p = psql("CREATE EXTENSION IF NOT EXISTS parquet_fdw;"
             "DROP SERVER IF EXISTS %s CASCADE; CREATE SERVER %s FOREIGN DATA WRAPPER parquet_fdw;"
             % (SERVER, SERVER))
    if p.returncode != 0:
        print('variant.bin check: cannot set up the server: %s' % p.stderr.strip())
        print('variant.bin check: 0 passed, 1 failed')
        return 1
    ok = bad = 0
    for binf in sorted(glob.glob(corpus + '/*_row-*.variant.bin')):
        m = re.match(r'(.*)_row-(\d+)\.variant\.bin$', os.path.basename(binf))
        pq, row = os.path.join(corpus, m.group(1) + '.parquet'), int(m.group(2))
        b = open(binf, 'rb').read()
        keys, mdl = parse_md(b)
        exp = decode(keys, b[mdl:])
        lines, err = ours(pq)
        if row >= len(lines):
            print('FAIL', os.path.basename(binf), 'no such row:', err.strip()[:200])
            bad += 1
            continue
        if lines[row] == '\\N':
            got = 'SQL NULL'
        else:
            # COPY text doubles backslashes
            got = json.loads(lines[row].replace('\\\\', '\\'),
                             parse_float=decimal.Decimal, parse_int=decimal.Decimal)
        if same(exp, got):
            ok += 1
        else:
            print('FAIL', os.path.basename(binf), 'expected', exp, 'got', lines[row])
            bad += 1
    psql("DROP SERVER IF EXISTS %s CASCADE;" % SERVER)
    print('variant.bin check: %d passed, %d failed' % (ok, bad))
    return 1 if bad or ok == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
