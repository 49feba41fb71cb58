// Generated interop files for the conformance harness.
//
//   node gen_duckdb.mjs NODE_MODULES_PARENT OUT_DIR
//
// DuckDB (@duckdb/node-api, an independent Parquet writer and reader)
// writes Parquet files covering what the parquet-testing corpus lacks:
// every type of issue #3's type table that DuckDB can write, NULLs in every
// column, lists (nested, NULL elements, empty), structs, maps, every DuckDB
// codec, both page formats (PARQUET_VERSION V1/V2), dictionary and plain
// encodings, many small row groups, and ~100k-row files.  Beside each
// NAME.parquet it writes NAME.parquet.expected.csv: DuckDB reading the file back,
// rendered as the corpus' expected CSVs are (COPY ... (HEADER), TimeZone
// UTC), so the harness's normalizers apply unchanged.
//
// All data is a pure function of the row number: two runs write the same
// values (uuid() and random() are never used).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const [modulesParent, outDir] = process.argv.slice(2);
if (!modulesParent || !outDir) {
	console.error('usage: node gen_duckdb.mjs NODE_MODULES_PARENT OUT_DIR');
	process.exit(2);
}
const require = createRequire(path.join(path.resolve(modulesParent), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

fs.mkdirSync(outDir, { recursive: true });
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
// One thread: rows keep their order and files are reproducible.
await con.run(`SET threads = 1; SET TimeZone = 'UTC'`);

const lit = (s) => "'" + s.replaceAll("'", "''") + "'";

// pick(i, [a, b, ...]): a SQL expression choosing among literal expressions
// by i modulo their count.
function pick(i, exprs) {
	return `(CASE (${i}) % ${exprs.length} ` +
		exprs.map((e, k) => `WHEN ${k} THEN ${e}`).join(' ') + ' END)';
}

// Rows with every scalar type.  Each column is NULL on its own residue
// class, so every column has NULLs and no row is NULL everywhere except
// where the all-null files ask for it; extremes come first.
const SCALARS = `
	CASE WHEN i % 11 = 3 THEN NULL ELSE i % 3 = 0 END AS c_bool,
	CASE WHEN i % 13 = 4 THEN NULL ELSE ${pick('i', ['-128', '127', '0', '(i % 256 - 128)'])}::TINYINT END AS c_int8,
	CASE WHEN i % 13 = 5 THEN NULL ELSE ${pick('i', ['-32768', '32767', '-1', '(i * 37 % 65536 - 32768)'])}::SMALLINT END AS c_int16,
	CASE WHEN i % 13 = 6 THEN NULL ELSE ${pick('i', ['-2147483648', '2147483647', '0', '(i * 7919 % 4294967296 - 2147483648)'])}::INTEGER END AS c_int32,
	CASE WHEN i % 13 = 7 THEN NULL ELSE ${pick('i', ['-9223372036854775808', '9223372036854775807', '-1', '(i * 1000003 * 1000033 - 4611686018427387904)'])}::BIGINT END AS c_int64,
	CASE WHEN i % 13 = 8 THEN NULL ELSE ${pick('i', ['0', '255', '128', '(i % 256)'])}::UTINYINT END AS c_uint8,
	CASE WHEN i % 13 = 9 THEN NULL ELSE ${pick('i', ['0', '65535', '32768', '(i * 37 % 65536)'])}::USMALLINT END AS c_uint16,
	CASE WHEN i % 13 = 10 THEN NULL ELSE ${pick('i', ['0', '4294967295', '2147483648', '(i * 7919 % 4294967296)'])}::UINTEGER END AS c_uint32,
	CASE WHEN i % 13 = 11 THEN NULL ELSE ${pick('i', ['0::UBIGINT', '18446744073709551615::UBIGINT', '9223372036854775808::UBIGINT', '(i::HUGEINT * 1000003 * 1000033 * 1000037 % 18446744073709551616)::UBIGINT'])} END AS c_uint64,
	CASE WHEN i % 17 = 1 THEN NULL ELSE ${pick('i', ["'nan'::FLOAT", "'inf'::FLOAT", "'-inf'::FLOAT", "'-0.0'::FLOAT", '3.4028235e38::FLOAT', '1.0e-45::FLOAT', '1.17549435e-38::FLOAT', '(i * 0.37 - 100)::FLOAT', '(i / 3.0)::FLOAT'])} END AS c_float,
	CASE WHEN i % 17 = 2 THEN NULL ELSE ${pick('i', ["'nan'::DOUBLE", "'inf'::DOUBLE", "'-inf'::DOUBLE", "'-0.0'::DOUBLE", '1.7976931348623157e308::DOUBLE', '5e-324::DOUBLE', '2.2250738585072014e-308::DOUBLE', '(i * 0.37 - 100)::DOUBLE', '(i / 3.0)::DOUBLE', '(i * 1e15 + 0.5)::DOUBLE'])} END AS c_double,
	CASE WHEN i % 19 = 1 THEN NULL ELSE ${pick('i', ['-9', '9', '0', '(i % 19 - 9)'])}::DECIMAL(1,0) END AS c_dec_1_0,
	CASE WHEN i % 19 = 2 THEN NULL ELSE ${pick('i', ['-99.99', '99.99', '0.01', '(i * 37 % 19999 - 9999)::DECIMAL(38,0) * 0.01'])}::DECIMAL(4,2) END AS c_dec_4_2,
	CASE WHEN i % 19 = 3 THEN NULL ELSE ${pick('i', ['-0.999999999', '0.999999999', '-0.000000001', '(i * 7919 % 1999999999 - 999999999)::DECIMAL(38,0) * 0.000000001'])}::DECIMAL(9,9) END AS c_dec_9_9,
	CASE WHEN i % 19 = 4 THEN NULL ELSE ${pick('i', ['-9999999999', '9999999999', '0', '(i * 104729 % 19999999999 - 9999999999)'])}::DECIMAL(10,0) END AS c_dec_10_0,
	CASE WHEN i % 19 = 5 THEN NULL ELSE ${pick('i', ['-999999999999.999999', '999999999999.999999', '0.000001', '(i * 1000003 * 1000033 % 1999999999999999999 - 999999999999999999)::DECIMAL(38,0) * 0.000001'])}::DECIMAL(18,6) END AS c_dec_18_6,
	CASE WHEN i % 19 = 6 THEN NULL ELSE ${pick('i', ['-99999999999999999.99', '99999999999999999.99', '-0.01', '(i::HUGEINT * 1000003 * 1000033 * 1000037 % 19999999999999999999 - 9999999999999999999)::DECIMAL(38,0) * 0.01'])}::DECIMAL(19,2) END AS c_dec_19_2,
	CASE WHEN i % 19 = 7 THEN NULL ELSE ${pick('i', ["'-99999999999999999999999999999999999999'::DECIMAL(38,0)", "'99999999999999999999999999999999999999'::DECIMAL(38,0)", '1::DECIMAL(38,0)', '(i::HUGEINT * 1000003 * 1000033 * 1000037 * 1000039 * 1000081 - 12345678901234567890123)::DECIMAL(38,0)'])} END AS c_dec_38_0,
	CASE WHEN i % 19 = 8 THEN NULL ELSE ${pick('i', ["'-9999999999999999999999999999.9999999999'::DECIMAL(38,10)", "'9999999999999999999999999999.9999999999'::DECIMAL(38,10)", "'0.0000000001'::DECIMAL(38,10)", '((i::HUGEINT * 1000003 * 1000033 * 1000037 - 7)::DECIMAL(38,0) * 0.0000000001)::DECIMAL(38,10)'])} END AS c_dec_38_10,
	CASE WHEN i % 23 = 1 THEN NULL ELSE ${pick('i', ["'0001-01-01'::DATE", "'9999-12-31'::DATE", "'1970-01-01'::DATE", "'0044-03-15 (BC)'::DATE", "'2000-02-29'::DATE", "(DATE '1970-01-01' + (i * 37 % 40000 - 20000)::INTEGER)"])} END AS c_date,
	CASE WHEN i % 23 = 2 THEN NULL ELSE ${pick('i', ["'00:00:00'::TIME", "'23:59:59.999999'::TIME", "'12:34:56.000001'::TIME", '(TIME \'00:00:00\' + to_microseconds(i * 7919 * 1000003 % 86400000000))'])} END AS c_time_us,
	CASE WHEN i % 23 = 3 THEN NULL ELSE ${pick('i', ["'00:00:00'::TIME_NS", "'23:59:59.999999999'::TIME_NS", "'12:34:56.123456789'::TIME_NS", "'00:00:00.000000500'::TIME_NS", "'00:00:00.000001500'::TIME_NS", '(TIME \'00:00:00\' + to_microseconds(i * 7919 * 1000003 % 86400000000))::TIME_NS'])} END AS c_time_ns,
	CASE WHEN i % 23 = 4 THEN NULL ELSE ${pick('i', ["'00:00:00+00'::TIMETZ", "'23:59:59.999999+00'::TIMETZ", "'12:00:00+05:30'::TIMETZ", "'01:00:00-08'::TIMETZ", '(TIME \'00:00:00\' + to_microseconds(i * 7919 * 1000003 % 86400000000))::TIMETZ'])} END AS c_timetz,
	CASE WHEN i % 29 = 1 THEN NULL ELSE ${pick('i', ["'0001-01-01 00:00:00'::TIMESTAMP", "'9999-12-31 23:59:59.999999'::TIMESTAMP", "'1970-01-01 00:00:00'::TIMESTAMP", "'1969-12-31 23:59:59.999999'::TIMESTAMP", "('0100-06-30 (BC)'::DATE + TIME '12:00:00')", "(TIMESTAMP '1970-01-01' + to_microseconds(i * 1000003 * 1000033 * 7 % 8000000000000000 - 3000000000000000))"])} END AS c_ts_us,
	CASE WHEN i % 29 = 2 THEN NULL ELSE ${pick('i', ["'0001-01-01 00:00:00'::TIMESTAMP_MS", "'9999-12-31 23:59:59.999'::TIMESTAMP_MS", "'1969-12-31 23:59:59.999'::TIMESTAMP_MS", "(TIMESTAMP '1970-01-01' + to_milliseconds(i * 1000003 * 7919 % 8000000000000 - 3000000000000))::TIMESTAMP_MS"])} END AS c_ts_ms,
	CASE WHEN i % 29 = 3 THEN NULL ELSE ${pick('i', ["'1677-09-22 00:00:00'::TIMESTAMP_NS", "'2262-04-11 23:47:16.854775'::TIMESTAMP_NS", "'1969-12-31 23:59:59.999999999'::TIMESTAMP_NS", "'2020-02-29 12:34:56.123456789'::TIMESTAMP_NS", "'2020-01-01 00:00:00.000000500'::TIMESTAMP_NS", "'1960-01-01 00:00:00.000000500'::TIMESTAMP_NS", "make_timestamp_ns((i::HUGEINT * 1000003 * 1000033 * 1000037 % 9000000000000000000 - 4500000000000000000)::BIGINT)"])} END AS c_ts_ns,
	CASE WHEN i % 29 = 4 THEN NULL ELSE ${pick('i', ["'0001-01-01 00:00:00+00'::TIMESTAMPTZ", "'9999-12-31 23:59:59.999999+00'::TIMESTAMPTZ", "'2000-01-01 00:00:00+05:30'::TIMESTAMPTZ", "'1969-12-31 23:59:59.999999+00'::TIMESTAMPTZ", "(TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_microseconds(i * 1000003 * 1000033 * 7 % 8000000000000000 - 3000000000000000))"])} END AS c_tstz_us,
	CASE WHEN i % 31 = 1 THEN NULL ELSE ${pick('i', ["INTERVAL '0 seconds'", "INTERVAL '1 year 2 months 3 days 04:05:06.789'", "INTERVAL '11 months 30 days 23:59:59.999'", "INTERVAL '100 years'", "INTERVAL '36 hours'", "INTERVAL '0.001 seconds'", "(to_months(i % 1000) + to_days(i % 400) + to_milliseconds(i * 7919 % 86400000))"])} END AS c_interval,
	CASE WHEN i % 31 = 2 THEN NULL ELSE ${pick('i', ["'00000000-0000-0000-0000-000000000000'::UUID", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID", "'80000000-0000-0000-7fff-ffffffffffff'::UUID", 'md5(i::VARCHAR)::UUID'])} END AS c_uuid,
	CASE WHEN i % 31 = 3 THEN NULL ELSE ${pick('i', ["'{}'", "'[]'", "'null'", "'\"text \\u00e9\"'", "'{\"a\": [1, 2.5, null, true], \"b\": {\"c\": \"ü\"}}'", "'{\"k\": ' || i || ', \"s\": \"row ' || i || '\"}'", "'-1.5e3'"])}::JSON END AS c_json,
	CASE WHEN i % 31 = 4 THEN NULL ELSE ${pick('i', ["''::BLOB", "'\\x00'::BLOB", "'\\xFF\\xFE\\x00\\x01'::BLOB", "'plain ascii, with comma'::BLOB", "'\\x5C\\x22\\x27'::BLOB", 'encode(\'blob-\' || i)', "'\\xC3\\xA9\\x0A\\x0D\\x09'::BLOB"])} END AS c_blob,
	CASE WHEN i % 37 = 1 THEN NULL ELSE ${pick('i', ["''", "'héllo wörld'", "'日本語テキスト'", "'emoji 🚀🎉 and ✓'", "'comma, \"quote\" and ''apostrophe'''", "'line1' || chr(10) || 'line2' || chr(13) || chr(10) || 'line3'", "'back\\\\slash \\\\N'", "'NULL'", "' leading and trailing '", "'Ωμέγα ελληνικά ЖЖЖ'", "'row ' || i", "repeat('x', 300 + i % 200)"])} END AS c_varchar,
	CASE WHEN i % 37 = 2 THEN NULL ELSE ${pick('i', ["'sad'", "'ok'", "'happy'", "'ünïcode'"])}::mood END AS c_enum`;

// Nested columns: lists (NULL list, empty list, NULL elements, nested),
// structs (NULL struct, NULL fields), maps (empty, NULL values).
const NESTED = `
	${pick('i', ['NULL', '[]::INTEGER[]', '[NULL]::INTEGER[]', '[1, NULL, 3]', '[i, -i, 2147483647, -2147483648]', 'range(0, i % 20)::INTEGER[]'])} AS l_int,
	${pick('i', ['NULL', '[]::BIGINT[]', '[NULL, NULL]::BIGINT[]', '[9223372036854775807, -9223372036854775808, i]'])} AS l_bigint,
	${pick('i', ['NULL', '[]::VARCHAR[]', "['a', NULL, '']", "['comma, inside', 'quote \" and '' apostrophe', 'brace { } [ ]', 'back\\\\slash']", "['ünï', '日本', '🚀', 'NULL', ' spaced ']", "['row ' || i, repeat('y', i % 50)]"])} AS l_varchar,
	${pick('i', ['NULL', '[]::DOUBLE[]', "[1.5, NULL, 'nan'::DOUBLE, 'inf'::DOUBLE, '-inf'::DOUBLE, -0.0]", '[i / 7.0, i * 1e100]'])} AS l_double,
	${pick('i', ['NULL', '[]::BOOLEAN[]', '[true, false, NULL]'])} AS l_bool,
	${pick('i', ['NULL', '[]::DATE[]', "['2020-01-01'::DATE, NULL, '1900-02-28'::DATE]", "[DATE '1970-01-01' + (i % 1000)::INTEGER]"])} AS l_date,
	${pick('i', ['NULL', "['2020-01-01 12:00:00.123456'::TIMESTAMP, NULL]", "[TIMESTAMP '1970-01-01' + to_seconds(i * 1000)]"])} AS l_ts,
	${pick('i', ['NULL', '[]::DECIMAL(10,2)[]', "[1.25::DECIMAL(10,2), NULL, -99999999.99::DECIMAL(10,2)]", '[(i / 100)::DECIMAL(10,2)]'])} AS l_dec,
	${pick('i', ['NULL', '[]::DECIMAL(38,4)[]', "['1234567890123456789012345678901234.5678'::DECIMAL(38,4), NULL]"])} AS l_dec38,
	${pick('i', ['NULL', "[md5(i::VARCHAR)::UUID, NULL]"])} AS l_uuid,
	${pick('i', ['NULL', '[]::INTEGER[][]', '[NULL]::INTEGER[][]', '[[], [NULL], NULL, [1, 2]]::INTEGER[][]', '[[i], [i + 1, i + 2]]::INTEGER[][]'])} AS l_nested,
	${pick('i', ['NULL', "{'a': NULL, 'b': NULL, 'c': NULL}::STRUCT(a INTEGER, b VARCHAR, c DOUBLE[])", "{'a': i::INTEGER, 'b': 'str ' || i, 'c': [i / 2.0, NULL]}", "{'a': -1, 'b': 'ü, \"x\"', 'c': []::DOUBLE[]}"])} AS s_struct,
	${pick('i', ['NULL', "{'x': {'y': i, 'z': [i, NULL]}, 'w': 'deep'}", "{'x': NULL, 'w': NULL}::STRUCT(x STRUCT(y BIGINT, z BIGINT[]), w VARCHAR)"])} AS s_nested,
	${pick('i', ['NULL', 'MAP {}::MAP(VARCHAR, INTEGER)', "MAP {'k1': 1, 'k 2': NULL, 'ключ': -5}", "MAP {'key' || i: i::INTEGER}"])} AS m_map,
	${pick('i', ['NULL', 'MAP {}::MAP(INTEGER, VARCHAR[])', "MAP {1: ['a', NULL], 2: NULL, 3: []::VARCHAR[]}", 'MAP {i::INTEGER: [i::VARCHAR]}'])} AS m_int_list,
	${pick('i', ['NULL', "[]::STRUCT(x INTEGER, y VARCHAR)[]", "[{'x': 1, 'y': 'one'}, NULL, {'x': NULL, 'y': NULL}]", "[{'x': i::INTEGER, 'y': 'v' || i}]"])} AS l_struct`;

// A mixed table for the codec / page-format / dictionary / row-group files:
// low- and high-cardinality columns, NULLs, strings, a list.
const MIXED = `
	i::BIGINT AS id,
	CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 100)::INTEGER END AS small_int,
	(i * 2654435761 % 4294967296)::BIGINT AS hashed,
	CASE WHEN i % 7 = 0 THEN NULL ELSE i * 0.25 END::DOUBLE AS dbl,
	(i % 1000 / 8.0)::FLOAT AS flt,
	${pick('i', ["'alpha'", "'beta'", "'gamma'", "'délta'", 'NULL'])} AS category,
	CASE WHEN i % 3 = 0 THEN NULL ELSE 'value-' || (i * 7919 % 100000) || '-ü' END AS text_val,
	(DATE '2000-01-01' + (i % 10000)::INTEGER) AS day,
	(TIMESTAMP '2020-01-01' + to_microseconds(i * 1000003)) AS ts,
	((i % 200000 - 100000) / 100)::DECIMAL(12,2) AS amount,
	i % 2 = 0 AS flag,
	CASE WHEN i % 5 = 0 THEN NULL ELSE [i % 10, NULL, i % 3]::INTEGER[] END AS tags`;

const files = [];
function add(name, select, rows, options) {
	files.push({ name, select, rows, options });
}

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli'];

add('types_scalar', SCALARS, 3000, '');
add('types_scalar_v2', SCALARS, 3000, 'PARQUET_VERSION V2');
add('types_scalar_plain', SCALARS, 3000, 'DICTIONARY_SIZE_LIMIT 1');
add('types_scalar_rowgroups', SCALARS, 10000, 'ROW_GROUP_SIZE 2048');
add('types_nested', NESTED, 2000, '');
add('types_nested_v2', NESTED, 2000, 'PARQUET_VERSION V2, COMPRESSION zstd');
add('types_nested_plain', NESTED, 2000, 'DICTIONARY_SIZE_LIMIT 1, COMPRESSION gzip');
for (const c of CODECS) {
	add(`codec_${c}_v1`, MIXED, 5000, `COMPRESSION ${c}`);
	add(`codec_${c}_v2`, MIXED, 5000, `COMPRESSION ${c}, PARQUET_VERSION V2`);
}
add('dict_plain_v1', MIXED, 10000, 'DICTIONARY_SIZE_LIMIT 1');
add('dict_plain_v2', MIXED, 10000, 'DICTIONARY_SIZE_LIMIT 1, PARQUET_VERSION V2');
add('rowgroups_many', MIXED, 50000, 'ROW_GROUP_SIZE 2048, COMPRESSION snappy');
add('rows_100k_zstd_v2', MIXED, 100000, 'COMPRESSION zstd, PARQUET_VERSION V2');
add('long_strings', `i::INTEGER AS id, repeat(chr(65 + (i % 26)::INTEGER), 500 + i * 37 % 2500) || 'ë' || i AS big_text,
	CASE WHEN i % 4 = 0 THEN NULL ELSE repeat('ab', i % 1500) END AS maybe_text`, 1000, 'COMPRESSION snappy');
add('all_null', SCALARS.replaceAll(/CASE WHEN i % \d+ = \d+ THEN NULL ELSE/g, 'CASE WHEN true THEN NULL ELSE'), 500, '');
add('empty', `${MIXED}, ${NESTED}`, 0, '');
add('single_row', `${SCALARS}, ${NESTED}`, 1, '');

// The generated values themselves must be what the expressions say:
// a cheap self-check that the SQL above did not silently go NULL.
async function rowCount(file) {
	const r = await con.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet(${lit(file)})`);
	return r.getRowObjects()[0].n;
}

await con.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'ünïcode')`);
const t0 = Date.now();
for (const f of files) {
	const pq = path.join(outDir, f.name + '.parquet');
	const csv = pq + '.expected.csv';
	const opts = ['FORMAT parquet'];
	if (f.options)
		opts.push(f.options);
	await con.run(`COPY (SELECT ${f.select} FROM range(${f.rows}) AS r(i) ORDER BY i) TO ${lit(pq)} (${opts.join(', ')})`);
	await con.run(`COPY (SELECT * FROM read_parquet(${lit(pq)})) TO ${lit(csv)} (FORMAT csv, HEADER)`);
	const n = await rowCount(pq);
	if (n !== f.rows)
		throw new Error(`${f.name}: ${n} rows read back, ${f.rows} written`);
}
console.log(`generated ${files.length} files in ${outDir} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
