#!/usr/bin/env python3
"""Writes test/data/variant/nested_variant.parquet: VARIANT groups nested inside a
struct and a list, which no writer at hand produces (DuckDB 1.5 refuses a
non-root VARIANT column).  Standard library only: a Thrift compact encoder
for the footer, v1 data pages, PLAIN values, RLE levels, no compression.

  python3 test/data/variant/make_nested_variant.py [OUT.parquet]

(default: nested_variant.parquet next to this script)

Schema (Parquet VARIANT groups per VariantShredding.md; w is shredded):

  required int64 id;                              1..40
  optional group st {                             NULL when id % 9 = 0
    required int64 k;                             id
    optional group v (VARIANT) {                  NULL when id % 5 = 0
      required binary metadata; required binary value;
    }                                             id (int64) when id is even,
                                                  else {"a": "s<id>"}
    optional group w (VARIANT) {                  NULL when id % 4 = 0
      required binary metadata; optional binary value;
      optional int64 typed_value;
    }                                             "w<id>" in value when
                                                  id % 3 = 0, else id * 10
                                                  in typed_value
  }
  optional group lv (LIST) {                      NULL when id % 7 = 0,
    repeated group list {                         [] when id % 11 = 0, else
      optional group element (VARIANT) {          [id (int8), "x<id>",
        required binary metadata;                  SQL-null element,
        required binary value;                     Variant null]
      }
    }
  }

sql/variant.sql builds the same values with jsonb functions and compares.
"""
import os
import struct
import sys

# ---- Variant binary (VariantEncoding.md) ---------------------------------

def v_metadata(keys):
    """Version 1, unsorted, 1-byte offsets."""
    body = b"".join(k.encode() for k in keys)
    offs, o = [0], 0
    for k in keys:
        o += len(k.encode())
        offs.append(o)
    assert o < 256
    return bytes([0x01, len(keys)] + offs) + body


def v_int64(x):
    return bytes([6 << 2]) + struct.pack("<q", x)


def v_int8(x):
    return bytes([3 << 2]) + struct.pack("<b", x)


def v_short_string(s):
    b = s.encode()
    assert len(b) < 64
    return bytes([(len(b) << 2) | 1]) + b


V_NULL = bytes([0])


def v_object(fields):
    """fields: [(field id, value bytes)], 1-byte ids and offsets."""
    offs, o = [0], 0
    for _, val in fields:
        o += len(val)
        offs.append(o)
    assert o < 256
    return (bytes([2, len(fields)] + [fid for fid, _ in fields] + offs)
            + b"".join(val for _, val in fields))


# ---- Thrift compact protocol ----------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


I32, I64, BINARY, LIST, STRUCT = 5, 6, 8, 9, 12


def t_struct(fields):
    """fields: [(id, type, value)] in ascending id; value per type."""
    out, last = bytearray(), 0
    for fid, typ, val in fields:
        if val is None:
            continue
        delta = fid - last
        if 0 < delta <= 15:
            out.append((delta << 4) | typ)
        else:
            out.append(typ)
            out += varint(zigzag(fid))
        last = fid
        out += t_value(typ, val)
    out.append(0)
    return bytes(out)


def t_value(typ, val):
    if typ in (I32, I64):
        return varint(zigzag(val))
    if typ == BINARY:
        b = val.encode() if isinstance(val, str) else val
        return varint(len(b)) + b
    if typ == STRUCT:
        return val  # already encoded
    if typ == LIST:
        etyp, items = val
        head = bytes([(len(items) << 4) | etyp]) if len(items) < 15 else \
            bytes([0xF0 | etyp]) + varint(len(items))
        return head + b"".join(t_value(etyp, it) for it in items)
    raise ValueError(typ)


# ---- Parquet --------------------------------------------------------------

REQUIRED, OPTIONAL, REPEATED = 0, 1, 2
PT_INT64, PT_BYTE_ARRAY = 2, 6
LT_LIST = t_struct([(3, STRUCT, t_struct([]))])
LT_VARIANT = t_struct([(16, STRUCT, t_struct([]))])


def schema_element(name, rep=None, ptype=None, children=None, logical=None, converted=None):
    return t_struct([(1, I32, ptype), (3, I32, rep), (4, BINARY, name),
                     (5, I32, children), (6, I32, converted), (10, STRUCT, logical)])


def rle_levels(levels, max_level):
    """RLE/bit-packing hybrid, every value its own RLE run, 4-byte length."""
    width = max_level.bit_length()
    nbytes = (width + 7) // 8
    body = b"".join(varint(1 << 1) + lv.to_bytes(nbytes, "little") for lv in levels)
    return struct.pack("<I", len(body)) + body


def plain(ptype, values):
    if ptype == PT_INT64:
        return b"".join(struct.pack("<q", v) for v in values)
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "nested_variant.parquet")
    rows = range(1, 41)
    # leaves: path, physical, max_def, max_rep, levels [(def, rep, value)]
    leaves = {
        ("id",): (PT_INT64, 0, 0, []),
        ("st", "k"): (PT_INT64, 1, 0, []),
        ("st", "v", "metadata"): (PT_BYTE_ARRAY, 2, 0, []),
        ("st", "v", "value"): (PT_BYTE_ARRAY, 2, 0, []),
        ("st", "w", "metadata"): (PT_BYTE_ARRAY, 2, 0, []),
        ("st", "w", "value"): (PT_BYTE_ARRAY, 3, 0, []),
        ("st", "w", "typed_value"): (PT_INT64, 3, 0, []),
        ("lv", "list", "element", "metadata"): (PT_BYTE_ARRAY, 3, 1, []),
        ("lv", "list", "element", "value"): (PT_BYTE_ARRAY, 3, 1, []),
    }

    def put(path, d, r=0, v=None):
        leaves[path][3].append((d, r, v))

    for i in rows:
        put(("id",), 0, 0, i)
        if i % 9 == 0:
            for p in leaves:
                if p[0] == "st":
                    put(p, 0)
        else:
            put(("st", "k"), 1, 0, i)
            if i % 5 == 0:
                put(("st", "v", "metadata"), 1)
                put(("st", "v", "value"), 1)
            elif i % 2 == 0:
                put(("st", "v", "metadata"), 2, 0, v_metadata([]))
                put(("st", "v", "value"), 2, 0, v_int64(i))
            else:
                put(("st", "v", "metadata"), 2, 0, v_metadata(["a"]))
                put(("st", "v", "value"), 2, 0, v_object([(0, v_short_string("s%d" % i))]))
            if i % 4 == 0:
                for f in ("metadata", "value", "typed_value"):
                    put(("st", "w", f), 1)
            else:
                put(("st", "w", "metadata"), 2, 0, v_metadata([]))
                if i % 3 == 0:
                    put(("st", "w", "value"), 3, 0, v_short_string("w%d" % i))
                    put(("st", "w", "typed_value"), 2)
                else:
                    put(("st", "w", "value"), 2)
                    put(("st", "w", "typed_value"), 3, 0, i * 10)
        el = [("lv", "list", "element", "metadata"), ("lv", "list", "element", "value")]
        if i % 7 == 0:
            for p in el:
                put(p, 0)
        elif i % 11 == 0:
            for p in el:
                put(p, 1)
        else:
            md = v_metadata([])
            items = [v_int8(i), v_short_string("x%d" % i), None, V_NULL]
            for k, item in enumerate(items):
                rep = 0 if k == 0 else 1
                if item is None:
                    put(el[0], 2, rep)
                    put(el[1], 2, rep)
                else:
                    put(el[0], 3, rep, md)
                    put(el[1], 3, rep, item)

    data = bytearray(b"PAR1")
    chunks = []
    for path, (ptype, max_def, max_rep, levels) in leaves.items():
        body = b""
        if max_rep:
            body += rle_levels([r for _, r, _ in levels], max_rep)
        if max_def:
            body += rle_levels([d for d, _, _ in levels], max_def)
        body += plain(ptype, [v for d, _, v in levels if d == max_def])
        header = t_struct([(1, I32, 0), (2, I32, len(body)), (3, I32, len(body)),
                           (5, STRUCT, t_struct([(1, I32, len(levels)), (2, I32, 0),
                                                 (3, I32, 3), (4, I32, 3)]))])
        offset = len(data)
        data += header + body
        size = len(header) + len(body)
        meta = t_struct([(1, I32, ptype), (2, LIST, (I32, [0, 3])),
                         (3, LIST, (BINARY, list(path))), (4, I32, 0),
                         (5, I64, len(levels)), (6, I64, size), (7, I64, size),
                         (9, I64, offset)])
        chunks.append((t_struct([(2, I64, offset), (3, STRUCT, meta)]), size))

    schema = [
        schema_element("schema", children=3),
        schema_element("id", REQUIRED, PT_INT64),
        schema_element("st", OPTIONAL, children=3),
        schema_element("k", REQUIRED, PT_INT64),
        schema_element("v", OPTIONAL, children=2, logical=LT_VARIANT),
        schema_element("metadata", REQUIRED, PT_BYTE_ARRAY),
        schema_element("value", REQUIRED, PT_BYTE_ARRAY),
        schema_element("w", OPTIONAL, children=3, logical=LT_VARIANT),
        schema_element("metadata", REQUIRED, PT_BYTE_ARRAY),
        schema_element("value", OPTIONAL, PT_BYTE_ARRAY),
        schema_element("typed_value", OPTIONAL, PT_INT64),
        schema_element("lv", OPTIONAL, children=1, logical=LT_LIST, converted=3),
        schema_element("list", REPEATED, children=1),
        schema_element("element", OPTIONAL, children=2, logical=LT_VARIANT),
        schema_element("metadata", REQUIRED, PT_BYTE_ARRAY),
        schema_element("value", REQUIRED, PT_BYTE_ARRAY),
    ]
    row_group = t_struct([(1, LIST, (STRUCT, [c for c, _ in chunks])),
                          (2, I64, sum(s for _, s in chunks)), (3, I64, len(rows))])
    footer = t_struct([(1, I32, 2), (2, LIST, (STRUCT, schema)), (3, I64, len(rows)),
                       (4, LIST, (STRUCT, [row_group])),
                       # created_by keeps the script's first path, so a rerun
                       # reproduces the committed file byte for byte
                       (6, BINARY, "parquet_fdw data-variant/make_nested_variant.py")])
    data += footer + struct.pack("<I", len(footer)) + b"PAR1"
    with open(out_path, "wb") as f:
        f.write(data)
    print("wrote", out_path)


if __name__ == "__main__":
    main()
