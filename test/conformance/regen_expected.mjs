// Writes NAME.parquet.expected.csv next to Parquet files the way the
// parquet-testing corpus' CSVs were made (see its MANIFEST.tsv header):
// DuckDB, COPY (SELECT * FROM read_parquet(FILE)) TO CSV (FORMAT csv,
// HEADER true), threads = 1, TimeZone = UTC, every other setting default.
// Run through scripts/regen-expected.sh, which installs the pinned DuckDB.
//
//   node regen_expected.mjs NODE_CACHE write|check PATH...
//
// PATH: a Parquet file or a folder (searched recursively for *.parquet).
// write: (re)writes each CSV DuckDB can produce; a file DuckDB cannot read
// keeps no CSV (an old one is removed), as in the corpus; nor does a file
// whose MANIFEST.tsv entry (found in a parent folder) says its expected
// CSV is "none" on purpose (DuckDB reads a file the format says must fail).
// check: writes nothing; compares each regenerated CSV byte for byte with
// the one beside the file.
// Prints one line per file that is not an exact match, then
// "regen-expected: N match, N differ, N new, N missing, N unreadable,
// N withheld".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [cache, mode, ...roots] = process.argv.slice(2);
if (!cache || !['write', 'check'].includes(mode) || roots.length === 0) {
	console.error('usage: node regen_expected.mjs NODE_CACHE write|check PATH...');
	process.exit(2);
}
const require = createRequire(path.join(path.resolve(cache), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

function parquetFiles(p) {
	const st = fs.statSync(p);
	if (st.isFile())
		return [path.resolve(p)];
	return fs.readdirSync(p, { withFileTypes: true })
		.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
		.flatMap((e) => {
			const q = path.join(p, e.name);
			if (e.isDirectory())
				return parquetFiles(q);
			return e.isFile() && e.name.endsWith('.parquet') ? [path.resolve(q)] : [];
		});
}

// MANIFEST.tsv of the corpus holding FILE: Map of relative path -> its
// "expected" column, or null when there is none.
const manifests = new Map();
function manifestEntry(file) {
	for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
		const m = path.join(dir, 'MANIFEST.tsv');
		if (!manifests.has(dir))
			manifests.set(dir, fs.existsSync(m) ? readManifest(m) : null);
		const rows = manifests.get(dir);
		if (rows !== null)
			return rows.get(path.relative(dir, file)) ?? null;
		if (dir === path.dirname(dir))
			return null;
	}
}
function readManifest(m) {
	const rows = new Map();
	let col = -1;
	for (const line of fs.readFileSync(m, 'utf8').split('\n')) {
		const f = line.split('\t');
		if (f[0] === 'path')
			col = f.indexOf('expected');
		else if (col >= 0 && !line.startsWith('#') && f.length > col)
			rows.set(f[0], f[col]);
	}
	return rows;
}

const lit = (s) => `'${s.replaceAll("'", "''")}'`;

// A fresh database per file: an internal error on a malformed file
// invalidates the whole DuckDB instance.
async function exportCsv(file, csv) {
	const db = await DuckDBInstance.create(':memory:');
	try {
		const con = await db.connect();
		await con.run(`SET threads = 1; SET TimeZone = 'UTC'`);
		await con.run(`COPY (SELECT * FROM read_parquet(${lit(file)})) TO ${lit(csv)} (FORMAT csv, HEADER true)`);
		return null;
	} catch (e) {
		fs.rmSync(csv, { force: true });
		return String(e.message).split('\n')[0];
	} finally {
		db.closeSync?.();
	}
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'regen-expected-'));
const count = { match: 0, differ: 0, new: 0, missing: 0, unreadable: 0, withheld: 0 };
try {
	for (const file of roots.flatMap(parquetFiles)) {
		const shipped = `${file}.expected.csv`;
		if ((manifestEntry(file) ?? '').startsWith('none') && !fs.existsSync(shipped)) {
			count.withheld++;
			continue;
		}
		const fresh = path.join(scratch, 'out.csv');
		const error = await exportCsv(file, fresh);
		const had = fs.existsSync(shipped);
		if (error !== null) {
			count.unreadable++;
			if (had) {
				count.missing++;
				console.log(`${mode === 'write' ? 'removed' : 'unreadable, has a CSV'}: ${file}: ${error}`);
				if (mode === 'write')
					fs.rmSync(shipped);
			}
			continue;
		}
		if (!had) {
			count.new++;
			console.log(`new: ${file}`);
		} else if (Buffer.compare(fs.readFileSync(fresh), fs.readFileSync(shipped)) === 0) {
			count.match++;
		} else {
			count.differ++;
			console.log(`differs: ${file}`);
		}
		if (mode === 'write')
			fs.copyFileSync(fresh, shipped);
		fs.rmSync(fresh);
	}
} finally {
	fs.rmSync(scratch, { recursive: true, force: true });
}
console.log(`regen-expected: ${count.match} match, ${count.differ} differ, ${count.new} new, ` +
	`${count.missing} missing, ${count.unreadable} unreadable, ${count.withheld} withheld`);
process.exit(count.differ + count.missing > 0 && mode === 'check' ? 1 : 0);
