// Checks the files of the project's own Parquet writer with DuckDB.
//
//   node check_writer.mjs NODE_MODULES_PARENT DIR
//
// test/unit/test_writer.c (run with PQ_WRITER_OUT_DIR=DIR) leaves
// writer_*.parquet files in DIR; every value in them is a function of the
// row's id.  DuckDB, an independent reader, reads each file and every column
// is compared with the same formula written here in SQL (keep the two in
// step: row_value() and list_length() in test_writer.c).  Any difference
// fails with the file, column and first differing row.  Then DuckDB writes
// NAME.parquet.expected.csv beside each file, so the conformance harness
// also compares parquet_fdw's reading of our writer's files with DuckDB's.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const [modulesParent, dir] = process.argv.slice(2);
if (!modulesParent || !dir) {
	console.error('usage: node check_writer.mjs NODE_MODULES_PARENT DIR');
	process.exit(2);
}
const require = createRequire(path.join(path.resolve(modulesParent), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1; SET TimeZone = 'UTC'`);

const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
// NULL on the residue class test_writer.c's row_is_null() gives "other
// optional columns".
const opt = (e) => `CASE WHEN i % 23 = 7 THEN NULL ELSE ${e} END`;

// column -> [DuckDB type it must read as, expression over i]
const EXPECT = {
	id: ['BIGINT', 'i'],
	i32: ['INTEGER', 'CASE WHEN i % 7 = 3 THEN NULL ELSE ((i * 7919) % 100000 - 50000)::INTEGER END'],
	i64: ['BIGINT', 'CASE WHEN i % 11 = 5 THEN NULL ELSE i * 1000003 - 500000000 END'],
	u8: ['UTINYINT', '(i % 256)::UTINYINT'],
	u32: ['UINTEGER', 'CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 2654435761) % 4294967296)::UINTEGER END'],
	u64: ['UBIGINT', '((i::HUGEINT * 11400714819323198485) % 18446744073709551616)::UBIGINT'],
	i8: ['TINYINT', opt('(i % 256 - 128)::TINYINT')],
	f32: ['FLOAT', 'CASE WHEN i % 13 = 0 THEN NULL ELSE ((i % 1000) * 0.5 - 100)::FLOAT END'],
	f64: ['DOUBLE', "CASE WHEN i % 97 = 1 THEN 'nan'::DOUBLE ELSE i / 8.0 END"],
	b: ['BOOLEAN', 'CASE WHEN i % 5 = 4 THEN NULL ELSE i % 3 = 0 END'],
	s: ['VARCHAR', "CASE WHEN i % 9 = 2 THEN NULL ELSE 'v' || (i % 50) || 'é' END"],
	bin: ['BLOB', "encode('k' || i) || '\\xFF'::BLOB"],
	d: ['DATE', opt("DATE '1970-01-01' + (i % 20000 - 10000)::INTEGER")],
	ts_us: ['TIMESTAMP', opt('make_timestamp(i * 1000003000 - 50000000000000)')],
	ts_ms_utc: ['TIMESTAMP WITH TIME ZONE', opt("TIMESTAMPTZ '1970-01-01 00:00:00+00' + to_milliseconds(i * 86400123)")],
	ts_ns: ['TIMESTAMP_NS', opt('make_timestamp_ns(i * 123456789 - 1000000000000)')],
	time_us: ['TIME', opt("TIME '00:00:00' + to_microseconds((i * 1000003) % 86400000000)")],
	time_ms_utc: ['TIME WITH TIME ZONE', opt("(TIME '00:00:00' + to_milliseconds((i * 1001) % 86400000))::TIMETZ")],
	dec9: ['DECIMAL(9,2)', opt('((i * 7919 - 300000000)::DECIMAL(38,0) * 0.01)::DECIMAL(9,2)')],
	dec18: ['DECIMAL(18,4)', opt('((i * 1000003 * 7 - 123456789)::DECIMAL(38,0) * 0.0001)::DECIMAL(18,4)')],
	dec38: ['DECIMAL(38,10)', opt('(((i - 50000)::HUGEINT * 100000000000000000000 + i)::DECIMAL(38,0) * 0.0000000001)::DECIMAL(38,10)')],
	dec_ba: ['DECIMAL(20,3)', opt('(((i - 50000)::HUGEINT * 1000000007)::DECIMAL(38,0) * 0.001)::DECIMAL(20,3)')],
	uuid: ['UUID', opt("(SELECT string_agg(printf('%02x', ((i * 31 + k * 17) % 256)::INTEGER), '' ORDER BY k) FROM range(16) t(k))::UUID")],
	ivl: ['INTERVAL', opt('to_months((i % 13)::INTEGER) + to_days((i % 31)::INTEGER) + to_milliseconds((i * 1000) % 86400000)')],
	l_int: ['INTEGER[]', 'CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN []::INTEGER[] ELSE ' +
		'list_transform(range(i % 4 + 1), j -> CASE WHEN (i + j) % 7 = 0 THEN NULL ELSE (i * 10 + j)::INTEGER END) END'],
	l_str: ['VARCHAR[]', "list_transform(range(i % 3), j -> 'a' || j)"],
	js: ['JSON', opt('(\'{"i": \' || i || \'}\')::JSON')],
	flba3: ['BLOB', opt("unhex(printf('%02x%02x41', (i % 256)::INTEGER, (i // 256 % 256)::INTEGER))")],
	i96: ['TIMESTAMP', opt('make_timestamp((i % 1000) * 86400000000 + i)')],
	en: ['VARCHAR', opt("['red', 'green', 'blue'][i % 3 + 1]")],
};

// Files DuckDB cannot read (BYTE_STREAM_SPLIT on integers and fixed-length
// byte arrays): their expected CSV is that of a twin holding the same rows
// in encodings DuckDB reads, itself checked against the formulas above.
const TWINS = {
	'writer_bss_all_types_v2_zstd.parquet': 'writer_plain_v1_uncompressed.parquet',
};

// Bloom filters (where the footer has them), probed with DuckDB's own
// parquet_bloom_probe(): a row group holding a value must never be
// excluded for it; values absent from the file must be excluded somewhere.
const BLOOM_PROBES = {
	id: { present: ['0', '1234', '2999'], absent: ['1000000000000', '-77'] },
	i32: { present: ['-50000', '-42081'], absent: ['1000001', '77777'] },
	s: { present: ["'v7é'", "'v49é'"], absent: ["'absent-1'", "'v50é'"] },
};

async function checkBloom(f, src) {
	const problems = [];
	const meta = (await con.runAndReadAll(`SELECT DISTINCT path_in_schema AS col FROM parquet_metadata(${lit(f)})
		WHERE bloom_filter_offset IS NOT NULL`)).getRowObjects().map((r) => r.col);
	const groups = (await con.runAndReadAll(`SELECT DISTINCT row_group_id::INTEGER AS g, row_group_num_rows::BIGINT AS n
		FROM parquet_metadata(${lit(f)}) ORDER BY g`)).getRowObjects();
	let start = 0n;
	const starts = groups.map((r) => { const s0 = start; start += r.n; return s0; });
	const rgOf = `CASE ${starts.map((s0, k) => `WHEN file_row_number >= ${s0} AND file_row_number < ${s0 + groups[k].n} THEN ${k}`).join(' ')} END`;
	for (const col of meta) {
		const probes = BLOOM_PROBES[col];
		if (!probes)
			continue;
		for (const v of probes.present) {
			const holders = (await con.runAndReadAll(`SELECT DISTINCT (${rgOf})::INTEGER AS g
				FROM read_parquet(${lit(f)}, file_row_number = true) WHERE "${col}" = ${v}`)).getRowObjects().map((r) => r.g);
			if (holders.length === 0)
				problems.push(`bloom ${col}: probe value ${v} is not in the file`);
			const res = (await con.runAndReadAll(`SELECT row_group_id::INTEGER AS g, bloom_filter_excludes AS x
				FROM parquet_bloom_probe(${lit(f)}, '${col}', ${v})`)).getRowObjects();
			for (const r of res)
				if (holders.includes(r.g) && r.x)
					problems.push(`bloom ${col}: row group ${r.g} holds ${v} but its filter excludes it`);
		}
		for (const v of probes.absent) {
			const res = (await con.runAndReadAll(`SELECT count(*) FILTER (WHERE bloom_filter_excludes)::INTEGER AS x
				FROM parquet_bloom_probe(${lit(f)}, '${col}', ${v})`)).getRowObjects();
			if (res[0].x === 0)
				problems.push(`bloom ${col}: absent value ${v} excluded by no row group`);
		}
	}
	return problems;
}

const files = fs.readdirSync(dir).filter((f) => /^writer_.*\.parquet$/.test(f) && !TWINS[f]).sort();
if (files.length === 0) {
	console.error(`check_writer: no writer_*.parquet in ${dir}`);
	process.exit(1);
}
let failures = 0;
for (const name of files) {
	const f = path.join(dir, name);
	const src = `read_parquet(${lit(f)})`;
	const desc = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjects();
	const types = Object.fromEntries(desc.map((r) => [r.column_name, r.column_type]));
	const problems = [];
	const names = Object.keys(EXPECT);
	if (desc.map((r) => r.column_name).join() !== names.join())
		problems.push(`columns ${desc.map((r) => r.column_name).join()} != ${names.join()}`);
	const cnt = (await con.runAndReadAll(`SELECT count(*)::BIGINT AS n, count(DISTINCT id)::BIGINT AS d,
		min(id)::BIGINT AS lo, max(id)::BIGINT AS hi FROM ${src}`)).getRowObjects()[0];
	if (cnt.n !== cnt.d || cnt.lo !== 0n || cnt.hi !== cnt.n - 1n)
		problems.push(`ids are not 0..n-1 (${cnt.n} rows, ${cnt.d} distinct, ${cnt.lo}..${cnt.hi})`);
	for (const [col, [type, expr]] of Object.entries(EXPECT)) {
		if (types[col] !== type) {
			problems.push(`${col}: DuckDB type ${types[col]}, expected ${type}`);
			continue;
		}
		const q = `SELECT i, "${col}"::VARCHAR AS got, (${expr})::VARCHAR AS want
			FROM (SELECT id AS i, * FROM ${src})
			WHERE "${col}" IS DISTINCT FROM (${expr}) ORDER BY i LIMIT 1`;
		const bad = (await con.runAndReadAll(q)).getRowObjects();
		if (bad.length > 0)
			problems.push(`${col}: row ${bad[0].i}: got ${bad[0].got}, want ${bad[0].want}`);
	}
	const bloomProblems = await checkBloom(f, src);
	problems.push(...bloomProblems);
	const bloomCols = (await con.runAndReadAll(`SELECT count(DISTINCT path_in_schema)::INTEGER AS n FROM parquet_metadata(${lit(f)})
		WHERE bloom_filter_offset IS NOT NULL`)).getRowObjects()[0].n;
	const bloomNote = bloomCols > 0 ? `, ${bloomCols} bloom filters probed` : '';
	if (problems.length > 0) {
		failures++;
		console.log(`FAIL ${name}:\n  ${problems.join('\n  ')}`);
	} else {
		console.log(`PASS ${name}: ${cnt.n} rows x ${names.length} columns equal the formulas${bloomNote}`);
	}
	await con.run(`COPY (SELECT * FROM ${src}) TO ${lit(f + '.expected.csv')} (FORMAT csv, HEADER)`);
}
for (const [name, twin] of Object.entries(TWINS)) {
	const f = path.join(dir, name);
	const t = path.join(dir, twin);
	if (!fs.existsSync(f) || !fs.existsSync(t + '.expected.csv')) {
		failures++;
		console.log(`FAIL ${name}: it or its twin ${twin} is missing`);
		continue;
	}
	fs.copyFileSync(t + '.expected.csv', f + '.expected.csv');
	console.log(`NOTE ${name}: expected CSV from its twin ${twin}`);
}
console.log(`check_writer: ${files.length - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
