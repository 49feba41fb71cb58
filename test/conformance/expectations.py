"""Targeted expectations for corpus files the DuckDB CSV cannot judge.

Keys are paths relative to the corpus root (as in MANIFEST.tsv).  Each entry
is a dict with a 'why' (the MANIFEST notes that justify it) and one of:

  error:        SQLSTATE the read must fail with (str), or True for "any
                ERROR" (never a crash; the harness checks the server after).
  error_or_csv: the file is malformed but lenient reading is acceptable: an
                ERROR passes, and so do rows that match the expected CSV.
  error_or_rows: an ERROR passes, and so do rows equal to 'rows' below.
  rows:         the exact rows expected, as a list of {column: value} dicts
                (value: Python str in the harness's text form, None = NULL,
                or a Python object for json/jsonb columns); checked with
                the same type-aware comparison as CSV cells.
  same_as:      compare with the expected CSV of another corpus file
                (upstream documents identical contents).
  csv_overrides: {(row_index0, column): replacement text or None} applied to
                the DuckDB CSV where the notes document DuckDB is wrong.
  row_count:    the number of rows (checked in addition to the above).

A corpus file that has no expected CSV and no entry here FAILS as "new file
without a test".  Only put an entry here when the MANIFEST notes (or the
upstream documentation they cite) justify it.
"""

ENCRYPTED_WHY = ("Parquet modular encryption; the FDW has no key management, "
                 "so reading must fail cleanly with ERRCODE_FEATURE_NOT_SUPPORTED (0A000); "
                 "DuckDB cannot read it either (MANIFEST: no expected.csv)")

EXPECT = {}

for _f in [
    "data/aes256/encrypt_columns_and_footer.parquet.encrypted",
    "data/aes256/encrypt_columns_and_footer_ctr.parquet.encrypted",
    "data/aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
    "data/encrypt_columns_and_footer.parquet.encrypted",
    "data/encrypt_columns_and_footer_aad.parquet.encrypted",
    "data/encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
    "data/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
    "data/external_key_material_java.parquet.encrypted",
    "data/uniform_encryption.parquet.encrypted",
    # plaintext (signed) footer: the schema is readable, the column data is
    # encrypted -> reading the rows must still fail with 0A000.
    "data/encrypt_columns_plaintext_footer.parquet.encrypted",
]:
    EXPECT[_f] = {"error": "0A000", "why": ENCRYPTED_WHY}

EXPECT.update({
    # ---- deprecated LZ4 codec: DuckDB refuses codec 5, so no expected CSV.
    # MANIFEST: 4 rows, c0:INT64, c1:BYTE_ARRAY, v11:DOUBLE, like
    # lz4_raw_compressed.parquet; upstream readers (Arrow's TestCodec,
    # DataFusion's sqllogictest, parquet2/polars) assert the same four rows
    # for all three files: c0 1593604800,1593604800,1593604801,1593604801;
    # c1 abc,def,abc,def; v11 42.0,7.7,42.125,7.7.
    "data/hadoop_lz4_compressed.parquet": {
        "same_as": "data/lz4_raw_compressed.parquet", "row_count": 4,
        "why": "deprecated LZ4 codec id with Hadoop framing; DuckDB cannot read it; "
               "same contents as lz4_raw_compressed.parquet (upstream reader tests)"},
    "data/non_hadoop_lz4_compressed.parquet": {
        "same_as": "data/lz4_raw_compressed.parquet", "row_count": 4,
        "why": "deprecated LZ4 codec id with a raw LZ4 block payload (readers must fall back "
               "from Hadoop framing); DuckDB cannot read it; same contents as lz4_raw_compressed.parquet"},

    # ---- DuckDB's CSV is documented WRONG for one cell.
    "data/int96_from_spark.parquet": {
        "csv_overrides": {(5, "a"): "290000-12-30 23:00:00"},
        "why": "MANIFEST row 6: upstream int96_from_spark.md gives 9089380393200000000 us since "
               "epoch (year 290000, representable in PostgreSQL timestamp); DuckDB overflows and "
               "prints 226414-01-07 (BC) 22:21:39.416064, so that expected.csv cell is WRONG. "
               "9089380393200000000 us = 290000-12-30 23:00:00 UTC"},

    # ---- malformed files where lenient reading is acceptable.
    "bad_data/ARROW-GH-45185.parquet": {
        "error_or_csv": True,
        "why": "MANIFEST: NOT normative: upstream marks the file malformed (repetition levels "
               "start with 1) and DuckDB read it leniently, so an error is equally acceptable"},
    "data/nation.dict-malformed.parquet": {
        "error_or_csv": True,
        "why": "MANIFEST: data page metadata truncated/malformed (PARQUET-816); lenient readers "
               "decode 25 rows, strict readers reject"},

    # ---- bad_data without an expected CSV: must fail (never crash).
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": {
        "error": True,
        "why": "MALFORMED: dictionary page header declares a negative number of values"},
    "bad_data/PARQUET-1481.parquet": {
        "error": True,
        "why": "MALFORMED: corrupted Thrift value in the schema (physical type id invalid); "
               "reader must reject cleanly"},

    # ---- shredded VARIANT: cases.json is authoritative.
    "shredded_variant/case-042.parquet": {
        "error": True,
        "why": "cases.json expects an error: Invalid variant, conflicting value and typed_value"},
    "shredded_variant/case-087.parquet": {
        "error": True,
        "why": "cases.json expects an error: Invalid variant, non-object value with shredded fields"},
    "shredded_variant/case-127.parquet": {
        "error": True,
        "why": "cases.json expects an error: Unsupported shredded value type: INTEGER(32,false)"},
    "shredded_variant/case-137.parquet": {
        "error": True,
        "why": "cases.json expects an error: Unsupported shredded value type: "
               "optional fixed_len_byte_array(4) typed_value (DuckDB wrongly returns rows)"},
    "shredded_variant/case-041.parquet": {
        "rows": [{"id": "1", "var": ["comedy", "drama"]}],
        "why": "variant case 41 (testArrayMissingValueColumn); DuckDB cannot read it; cases.json: "
               "VariantArray([STRING comedy, STRING drama])"},
    "shredded_variant/case-131.parquet": {
        "rows": [{"id": "1", "var": 34}],
        "why": "variant case 131 (testMissingValueColumn); DuckDB cannot read it; cases.json: INT32 34"},
    "shredded_variant/case-138.parquet": {
        "rows": [{"id": "1", "var": {"a": 1234, "b": "iceberg"}}],
        "why": "variant case 138 (testShreddedObjectMissingValueColumn); DuckDB cannot read it; "
               "cases.json: object {a: INT16 1234, b: STRING iceberg}"},
    "shredded_variant/case-043-INVALID.parquet": {
        "error_or_rows": True,
        "rows": [{"id": "1", "var": {"a": None}}],
        "why": "INVALID per spec: reader may error or return the shredded value; cases.json gives "
               "{a: null}; MANIFEST: DuckDB result {a: NULL, b: 2024-01-30} differs from cases.json"},
    "shredded_variant/case-125-INVALID.parquet": {
        "error_or_rows": True,
        "rows": [{"id": "1", "var": {"a": None, "b": "iceberg"}}],
        "why": "INVALID per spec: reader may error or return the shredded value; cases.json gives "
               "{a: null, b: iceberg}"},
})

# ---- shredded VARIANT cells where DuckDB's text form loses what cases.json
# (authoritative per the MANIFEST notes) says.  A top-level Variant null
# (cases.json "Variant(type=NULL)") is a value, JSON null in jsonb, while
# DuckDB prints it as SQL NULL (empty field).
for _f in ["047", "089", "129", "135"]:
    EXPECT["shredded_variant/case-%s.parquet" % _f] = {
        "csv_overrides": {(0, "var"): "null"},
        "why": "cases.json: Variant(type=NULL, value=null), a Variant null (JSON null), not a "
               "missing value; DuckDB's CSV shows SQL NULL"}
# TIMESTAMPTZ_NANOS values: DuckDB keeps microseconds (truncated toward zero:
# .123457 before 1970), cases.json gives all nine digits.
for _f, _ts in [("033", "2024-11-07 12:33:54.123456789+00"),
                ("077", "2024-11-07 12:33:54.123456789+00"),
                ("119", "2024-11-07 12:33:54.123456789+00"),
                ("034", "1957-11-07 12:33:54.123456789+00"),
                ("078", "1957-11-07 12:33:54.123456789+00")]:
    EXPECT["shredded_variant/case-%s.parquet" % _f] = {
        "csv_overrides": {(0, "var"): _ts},
        "why": "cases.json: Variant(type=TIMESTAMPTZ_NANOS, value=%s); DuckDB's TIMESTAMP WITH "
               "TIME ZONE holds microseconds only" % _ts.replace(" ", "T").replace("+00", "+00:00")}

