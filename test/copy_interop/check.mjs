// Reads the files COPY TO wrote (run.sh) with three independent readers and
// compares every value with the source table's canonical form
// (interop_canonical in source.sql, exported as expected.jsonl).
//
//   node check.mjs NODE_MODULES_PARENT DIR
//
// DuckDB (@duckdb/node-api) checks every column.  hyparquet and arrow-rs
// (parquet-wasm, through apache-arrow) check the columns whose values they
// return exactly: hyparquet has no INTERVAL and returns decimals as doubles
// (so only n9 and n18, which doubles hold exactly); arrow-rs is checked on
// the integer, float, text, binary, date, uuid, json, enum, list and nested
// (STRUCT, list<list>, list<struct>) columns.
// Prints one "ok"/"FAIL" line per reader and file, then "N passed, N failed".
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const [modulesParent, dir] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modulesParent), 'noop.js'));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const { DuckDBInstance } = await load('@duckdb/node-api');
const hyparquet = await load('hyparquet');
const { compressors } = await load('hyparquet-compressors');
const wasm = await load('parquet-wasm');
const arrow = await load('apache-arrow');

const expected = fs.readFileSync(path.join(dir, 'expected.jsonl'), 'utf8')
	.trim().split('\n').map((l) => JSON.parse(l));
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort();
let passed = 0;
let failed = 0;

// Compare rows (both sorted by id) on the given columns.
function compare(reader, file, rows, columns) {
	const problems = [];
	if (rows.length !== expected.length)
		problems.push(`${rows.length} rows, expected ${expected.length}`);
	for (let r = 0; r < Math.min(rows.length, expected.length) && problems.length < 5; r++)
		for (const c of columns) {
			const got = JSON.stringify(rows[r][c] ?? null);
			const want = JSON.stringify(expected[r][c] ?? null);
			if (got !== want)
				problems.push(`id ${expected[r].id} column ${c}: got ${got}, expected ${want}`);
		}
	if (problems.length === 0) {
		passed++;
		console.log(`ok   ${reader} ${file} (${rows.length} rows, ${columns.length} columns)`);
	} else {
		failed++;
		console.log(`FAIL ${reader} ${file}: ${problems.join('; ')}`);
	}
}

const ALL = Object.keys(expected[0]);
// The nested columns (STRUCT, list<list>, list<struct>) as plain JSON:
// Arrow vectors and struct rows, hyparquet's undefined, all made arrays,
// objects and nulls.
const NESTED = ['st', 'm', 'ap'];
function plain(v) {
	if (v === null || v === undefined) return null;
	if (typeof v === 'bigint') return Number(v);
	if (Array.isArray(v)) return v.map(plain);
	if (typeof v === 'object') {
		if (typeof v.get === 'function' && 'length' in v)
			return Array.from({ length: v.length }, (_, i) => plain(v.get(i)));
		const o = typeof v.toJSON === 'function' ? v.toJSON() : v;
		return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plain(x)]));
	}
	return v;
}
const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');

// ---- DuckDB: canonical form computed in SQL
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1; SET TimeZone = 'UTC'`);
for (const f of files) {
	const p = path.join(dir, f).replaceAll("'", "''");
	const reader = await con.runAndReadAll(`
		SELECT id, b, i2, i4, i8::VARCHAR AS i8, f4::DOUBLE AS f4, f8,
		       n9::VARCHAR AS n9, n18::VARCHAR AS n18, n38::VARCHAR AS n38, t,
		       lower(hex("by")) AS "by", d::VARCHAR AS d,
		       epoch_us(DATE '1970-01-01' + tm)::VARCHAR AS tm,
		       epoch_us(ts)::VARCHAR AS ts, epoch_us(tstz)::VARCHAR AS tstz,
		       CASE WHEN iv IS NOT NULL THEN
		         (datepart('year', iv) * 12 + datepart('month', iv))::VARCHAR || ',' ||
		         datepart('day', iv)::VARCHAR || ',' ||
		         (datepart('hour', iv) * 3600000 + datepart('minute', iv) * 60000 +
		          datepart('microseconds', iv) // 1000)::VARCHAR END AS iv,
		       u::VARCHAR AS u, jb::VARCHAR AS jb, mood::VARCHAR AS mood, "ai", "at",
		       st, m, ap
		  FROM read_parquet('${p}') ORDER BY id`);
	compare('duckdb', f, reader.getRowObjectsJson(), ALL);
}

// ---- hyparquet
const HYP = ['id', 'b', 'i2', 'i4', 'i8', 'f4', 'f8', 'n9', 'n18', 't', 'by', 'd', 'tm', 'ts',
	'tstz', 'u', 'jb', 'mood', 'ai', 'at', ...NESTED];
const SCALE = { n9: 2, n18: 4 };
function hypValue(c, v) {
	if (v === null || v === undefined) return null;
	if (c in SCALE) return v.toFixed(SCALE[c]);
	if (typeof v === 'bigint') return v.toString();
	if (v instanceof Uint8Array) return hex(v);
	if (c === 'd') return v.toISOString().slice(0, 10);
	if (c === 'jb') return v;
	if (NESTED.includes(c)) return plain(v);
	if (Array.isArray(v)) return v.map((e) => (e === undefined ? null : e));
	return v;
}
for (const f of files) {
	const buf = fs.readFileSync(path.join(dir, f));
	const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
	const rows = await hyparquet.parquetReadObjects({
		file, columns: HYP, utf8: false, compressors,
		parsers: {
			timestampFromMilliseconds: (ms) => (BigInt(ms) * 1000n).toString(),
			timestampFromMicroseconds: (us) => BigInt(us).toString(),
			timestampFromNanoseconds: (ns) => (BigInt(ns) / 1000n).toString(),
			dateFromDays: (d) => new Date(d * 86400000),
			stringFromBytes: (b) => b && new TextDecoder().decode(b),
			jsonFromBytes: (b) => b && new TextDecoder().decode(b),
			uuidFromBytes: (b) => {
				if (!b) return undefined;
				const h = hex(b);
				return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
			},
		},
	});
	const out = rows.map((r) => Object.fromEntries(HYP.map((c) => [c, hypValue(c, r[c])])))
		.sort((a, b) => a.id - b.id);
	compare('hyparquet', f, out, HYP);
}

// ---- arrow-rs through parquet-wasm
const ARW = ['id', 'b', 'i2', 'i4', 'i8', 'f4', 'f8', 't', 'by', 'd', 'u', 'jb', 'mood', 'ai', 'at',
	...NESTED];
function arrowValue(c, v) {
	if (v === null || v === undefined) return null;
	if (NESTED.includes(c)) return plain(v);
	if (typeof v === 'bigint') return v.toString();
	if (v instanceof Uint8Array) return c === 'u' ?
		`${hex(v).slice(0, 8)}-${hex(v).slice(8, 12)}-${hex(v).slice(12, 16)}-${hex(v).slice(16, 20)}-${hex(v).slice(20)}` : hex(v);
	if (c === 'd') return new Date(typeof v === 'number' ? v : Number(v)).toISOString().slice(0, 10);
	if (typeof v === 'object' && typeof v.get === 'function' && 'length' in v)
		return Array.from({ length: v.length }, (_, i) => v.get(i) ?? null);
	return v;
}
for (const f of files) {
	const bytes = new Uint8Array(fs.readFileSync(path.join(dir, f)));
	const table = arrow.tableFromIPC(wasm.readParquet(bytes).intoIPCStream());
	const cols = Object.fromEntries(ARW.map((c) => [c, table.getChild(c)]));
	const out = [];
	for (let r = 0; r < table.numRows; r++)
		out.push(Object.fromEntries(ARW.map((c) => [c, arrowValue(c, cols[c].get(r))])));
	out.sort((a, b) => a.id - b.id);
	compare('arrow-rs', f, out, ARW);
}

// ---- DuckDB reads our bloom filters: a value absent from the file is
// excluded in every row group, one present is not excluded in its own.
for (const f of files.filter((x) => x.includes('bloom'))) {
	const p = path.join(dir, f).replaceAll("'", "''");
	const absent = (await con.runAndReadAll(
		`SELECT count(*) FILTER (WHERE NOT bloom_filter_excludes)::INTEGER AS n FROM parquet_bloom_probe('${p}', 't', 'no such text')`)).getRowObjectsJson()[0].n;
	const present = (await con.runAndReadAll(
		`SELECT count(*) FILTER (WHERE NOT bloom_filter_excludes)::INTEGER AS n FROM parquet_bloom_probe('${p}', 't', 'text 1240')`)).getRowObjectsJson()[0].n;
	if (absent === 0 && present === 1) {
		passed++;
		console.log(`ok   duckdb bloom filter ${f}: absent value excluded in all row groups, present value kept in 1`);
	} else {
		failed++;
		console.log(`FAIL duckdb bloom filter ${f}: absent kept in ${absent}, present kept in ${present} row groups`);
	}
}
// ---- hyparquet sees the declared order in every row group's metadata
for (const f of files.filter((x) => x.startsWith('sorted_'))) {
	const buf = fs.readFileSync(path.join(dir, f));
	const meta = hyparquet.parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
	const want = JSON.stringify([{ column_idx: 3, descending: true, nulls_first: false },
		{ column_idx: 0, descending: false, nulls_first: false }]);
	const bad = meta.row_groups.filter((rg) => JSON.stringify(rg.sorting_columns) !== want);
	if (meta.row_groups.length > 1 && bad.length === 0) {
		passed++;
		console.log(`ok   hyparquet sorting_columns ${f}: ${meta.row_groups.length} row groups declare i4 DESC, id`);
	} else {
		failed++;
		console.log(`FAIL hyparquet sorting_columns ${f}: ${JSON.stringify(bad[0]?.sorting_columns)}`);
	}
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
