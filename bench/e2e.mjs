// End-to-end benchmark driver: the same data as a heap table, as CSV under
// file_fdw, as Parquet files read through parquet_fdw, and the same Parquet
// files read by DuckDB itself; each query runs on every form in one run and
// the medians are printed side by side, with ratios and the goals of issue #6.
//
// Started by bench/run.sh, which installs what is needed, starts a throwaway
// PostgreSQL cluster and exports PGHOST/PGPORT/PGUSER/PGDATABASE.  Run by
// hand (with a server already up) as
//
//   BENCH_NODE_MODULES=$HOME/.cache/parquet_fdw node bench/e2e.mjs
//
// Environment:
//   BENCH_SCALE        small (1M-row t10m, ~600k lineitem; default) or
//                      full (10M-row t10m, ~6M lineitem)
//   BENCH_SEED         seed of the data generator (default 42)
//   BENCH_RUNS         timed runs per query and form, after one warm-up (5)
//   BENCH_DATA_DIR     where the generated files are cached
//                      (default /var/tmp/parquet_fdw-bench); the server's OS
//                      user must be able to read it
//   BENCH_OUT          also write the report (markdown) to this file
//   BENCH_QUERIES      only these queries (comma-separated ids: sum3, count,
//                      q1, q6, point)
//   BENCH_VARIANTS     only these Parquet files (comma-separated names such
//                      as snappy-v1-dict, zstd-v2-plain); all are generated
//   BENCH_NODE_MODULES folder whose node_modules holds @duckdb/node-api
//   BENCH_PSQL         psql to use (default: psql in PATH)
//
// Order of work: generate (or reuse) the files, load every PostgreSQL form,
// run every query on every form (a warm-up round, then BENCH_RUNS rounds in
// which every form runs once, in turn), check that all forms returned the
// same rows, and only then print times.  A form whose result differs is shown as
// MISMATCH without a time and the exit status is 1; a form that cannot run
// (parquet_fdw not installed or its scan failing) is shown with its error
// and does not change the exit status.

import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = process.env.BENCH_NODE_MODULES || process.cwd();
const requireFrom = createRequire(path.join(MODULES, 'noop.js'));
const { DuckDBInstance } = await import(
	pathToFileURL(requireFrom.resolve('@duckdb/node-api')).href);

// ------------------------------------------------------------------ settings

const SCALES = {
	small: { t10m: 1_000_000, orders: 150_000 },
	full: { t10m: 10_000_000, orders: 1_500_000 },
};
const SCALE = process.env.BENCH_SCALE || 'small';
if (!SCALES[SCALE]) {
	console.error(`BENCH_SCALE must be one of ${Object.keys(SCALES).join(', ')}`);
	process.exit(2);
}
const SEED = parseInt(process.env.BENCH_SEED || '42', 10);
const RUNS = parseInt(process.env.BENCH_RUNS || '5', 10);
const PSQL = process.env.BENCH_PSQL || 'psql';
const ALL_THREADS = os.cpus().length;
const DATA_ROOT = process.env.BENCH_DATA_DIR || '/var/tmp/parquet_fdw-bench';
const DATA_DIR = path.join(DATA_ROOT, `${SCALE}-seed${SEED}`);
const ROW_GROUP = 100_000;

// Parquet files written by DuckDB: every codec x page version x dictionary
// combination the issue asks for.  The first one is the reference file:
// the one heap and CSV are compared with for the DuckDB ratio.
const DUCK_VARIANTS = [];
for (const codec of ['snappy', 'zstd'])
	for (const ver of ['v1', 'v2'])
		for (const dict of [true, false])
			DUCK_VARIANTS.push({
				name: `${codec}-${ver}-${dict ? 'dict' : 'plain'}`,
				label: `${codec} ${ver} ${dict ? 'dict' : 'no dict'}`,
				copyOpts: `COMPRESSION ${codec}, PARQUET_VERSION ${ver}` +
					(dict ? '' : ', DICTIONARY_SIZE_LIMIT 0'),
			});
// Files written from the same CSV by this project's writer (bench/csv2parquet,
// built by run.sh; BENCH_CSV2PARQUET names it).  Rewritten on every run, as
// the writer changes; left out when the tool is missing or fails.
const CSV2PARQUET = process.env.BENCH_CSV2PARQUET || path.join(HERE, 'bin', 'csv2parquet');
const OWN_VARIANTS = [
	{ name: 'own-snappy-v1-dict', label: 'ours snappy v1 dict', own: true,
		args: ['--codec', 'snappy'] },
	{ name: 'own-zstd-v2-plain', label: 'ours zstd v2 no dict', own: true,
		args: ['--codec', 'zstd', '--v2', '--plain'] },
];
const VARIANTS = [...DUCK_VARIANTS, ...OWN_VARIANTS];
const only = (env, items, what) => {
	if (!process.env[env])
		return items;
	const want = process.env[env].split(',').map((x) => x.trim());
	const unknown = want.filter((w) => !items.some((it) => (it.name || it.id) === w));
	if (unknown.length) {
		console.error(`${env}: unknown ${what} ${unknown.join(', ')}`);
		process.exit(2);
	}
	return items.filter((it) => want.includes(it.name || it.id));
};
const RUN_VARIANTS = only('BENCH_VARIANTS', VARIANTS, 'Parquet file');
const REF = RUN_VARIANTS[0];

// Column declarations, the same for heap, file_fdw and parquet_fdw.
const TABLES = {
	t10m: 'a bigint, b int, c text, d float8, e date',
	lineitem: `l_orderkey bigint, l_partkey bigint, l_suppkey bigint,
		l_linenumber int, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
		l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag text,
		l_linestatus text, l_shipdate date, l_commitdate date, l_receiptdate date,
		l_shipinstruct text, l_shipmode text, l_comment text`,
};

// Queries.  {t} is the table (a relation name or DuckDB's read_parquet(...)),
// {key} the point-lookup key.  kinds, one letter per output column, drive the
// comparison: i integer and n decimal (exact), f float (relative 1e-9:
// float sums depend on the order of the additions and averages are numeric
// in PostgreSQL but double in DuckDB), t text and d date (exact).
// Q1 and Q6 are TPC-H's published text: the date arithmetic with an
// interval makes a timestamp, compared with the date column.
const Q1 = `SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM {t}
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`;
const Q6 = `SELECT sum(l_extendedprice * l_discount) AS revenue
FROM {t}
WHERE l_shipdate >= DATE '1994-01-01'
  AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24`;
const QUERIES = [
	{ id: 'sum3', table: 't10m', kinds: 'iif',
		sql: 'SELECT sum(a), sum(b), sum(d) FROM {t}' },
	{ id: 'count', table: 't10m', kinds: 'i',
		sql: 'SELECT count(*) FROM {t}' },
	{ id: 'q1', table: 'lineitem', kinds: 'ttnnnnfffi', sql: Q1 },
	{ id: 'q6', table: 'lineitem', kinds: 'n', sql: Q6 },
	{ id: 'point', table: 't10m', kinds: 'iitfd',
		sql: 'SELECT a, b, c, d, e FROM {t} WHERE a = {key}' },
];
const RUN_QUERIES = only('BENCH_QUERIES', QUERIES, 'query');

// Goals of issue #6 (and #4's point lookup), checked on every parquet_fdw form.
const GOALS = {
	scanVsHeap: 0.5,        // sum3, q1, q6 without pushdown: <= 0.5x heap
	pushdownVsDuck1: 1.5,   // q1, q6 with pushdown: <= 1.5x DuckDB 1 thread
	tpchVsDuck1: 1.0,       // issue #12: q1, q6 as published <= 1.0x DuckDB 1 thread
	peakMB: 256,            // peak backend memory of any query
	pointVsScan: 1 / 20,    // issue #4: point lookup <= 1/20 of a full scan
};

const sqlLit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const log = (...a) => console.error('[bench]', ...a);

// ------------------------------------------------------------------ data

async function generate(duck) {
	const sc = SCALES[SCALE];
	const genSql = fs.readFileSync(path.join(HERE, 'e2e_gen.sql'), 'utf8');
	const ver = (await duck.runAndReadAll('SELECT version()')).getRows()[0][0];
	// The stamp names everything the files depend on; other stamps regenerate.
	const stamp = crypto.createHash('sha256')
		.update(JSON.stringify({ genSql, sc, SEED, ver, VARIANTS: DUCK_VARIANTS, ROW_GROUP }))
		.digest('hex');
	const stampFile = path.join(DATA_DIR, 'stamp.json');
	if (fs.existsSync(stampFile)) {
		const meta = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
		if (meta.stamp === stamp) {
			log(`reusing data in ${DATA_DIR}`);
			return meta;
		}
	}
	fs.rmSync(DATA_DIR, { recursive: true, force: true });
	fs.mkdirSync(DATA_DIR, { recursive: true, mode: 0o755 });
	fs.chmodSync(DATA_ROOT, 0o755);
	fs.chmodSync(DATA_DIR, 0o755);

	log(`generating ${SCALE} data (seed ${SEED}) in ${DATA_DIR}`);
	let t0 = performance.now();
	const script = genSql
		.replaceAll('{{N_T10M}}', String(sc.t10m))
		.replaceAll('{{N_ORDERS}}', String(sc.orders))
		.replaceAll('{{SEED}}', String(SEED));
	await duck.run(script);
	log(`generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

	const meta = { stamp, duckdb: ver, rows: {}, bytes: {}, encodings: {} };
	for (const t of Object.keys(TABLES)) {
		const n = (await duck.runAndReadAll(`SELECT count(*) FROM ${t}`)).getRows()[0][0];
		meta.rows[t] = Number(n);
		t0 = performance.now();
		const csv = path.join(DATA_DIR, `${t}.csv`);
		await duck.run(`COPY ${t} TO ${sqlLit(csv)} (FORMAT csv, HEADER)`);
		meta.bytes[`${t}.csv`] = fs.statSync(csv).size;
		for (const v of DUCK_VARIANTS) {
			const f = path.join(DATA_DIR, `${t}_${v.name}.parquet`);
			await duck.run(`COPY ${t} TO ${sqlLit(f)} (FORMAT parquet, ` +
				`ROW_GROUP_SIZE ${ROW_GROUP}, ${v.copyOpts})`);
			meta.bytes[`${t}_${v.name}.parquet`] = fs.statSync(f).size;
			// Which encodings DuckDB chose, for the report.
			const enc = await duck.runAndReadAll(
				`SELECT string_agg(DISTINCT encodings, ', ' ORDER BY encodings) ` +
				`FROM parquet_metadata(${sqlLit(f)})`);
			meta.encodings[`${t}_${v.name}`] = enc.getRows()[0][0];
		}
		log(`wrote ${t} (${meta.rows[t]} rows) as CSV and ${DUCK_VARIANTS.length} Parquet files ` +
			`in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
	}
	// The point-lookup key: the key of the row at the golden-ratio position.
	const k = Math.floor(sc.t10m * 0.6180339887);
	meta.pointKey = String((await duck.runAndReadAll(
		`SELECT a FROM t10m ORDER BY a LIMIT 1 OFFSET ${k}`)).getRows()[0][0]);
	for (const t of Object.keys(TABLES))
		await duck.run(`DROP TABLE ${t}`);
	for (const f of fs.readdirSync(DATA_DIR))
		fs.chmodSync(path.join(DATA_DIR, f), 0o644);
	fs.writeFileSync(stampFile, JSON.stringify(meta, null, 1));
	return meta;
}

// Column types of the CSV files for csv2parquet.
const CSV_TYPES = {
	t10m: 'i64,i32,str,f64,date',
	lineitem: 'i64,i64,i64,i32,dec15.2,dec15.2,dec15.2,dec15.2,str,str,date,date,date,str,str,str',
};

// Writes the OWN_VARIANTS files; a variant that cannot be written gets
// .missing (its forms are then shown as not run).
async function writeOwn(duck, meta) {
	for (const v of OWN_VARIANTS) {
		if (!fs.existsSync(CSV2PARQUET)) {
			v.missing = `${CSV2PARQUET} not built (make -C bench csv2parquet)`;
			continue;
		}
		const t0 = performance.now();
		for (const t of Object.keys(TABLES)) {
			const f = path.join(DATA_DIR, `${t}_${v.name}.parquet`);
			const r = spawnSync(CSV2PARQUET, [...v.args, '--row-group', String(ROW_GROUP),
				CSV_TYPES[t], path.join(DATA_DIR, `${t}.csv`), f], { encoding: 'utf8' });
			if (r.status !== 0) {
				const why = r.signal ? `killed by ${r.signal}` : (r.stderr || String(r.error));
				v.missing = `csv2parquet failed: ${why.trim().slice(0, 100)}`;
				break;
			}
			fs.chmodSync(f, 0o644);
			meta.bytes[`${t}_${v.name}.parquet`] = fs.statSync(f).size;
			const enc = await duck.runAndReadAll(
				`SELECT string_agg(DISTINCT encodings, ', ' ORDER BY encodings) ` +
				`FROM parquet_metadata(${sqlLit(f)})`);
			meta.encodings[`${t}_${v.name}`] = enc.getRows()[0][0];
		}
		if (v.missing)
			log(`${v.label}: ${v.missing}`);
		else
			log(`wrote ${v.name} files with csv2parquet in ` +
				`${((performance.now() - t0) / 1000).toFixed(1)} s`);
	}
}

// ------------------------------------------------------------------ PostgreSQL

// Runs a psql script in one session; unaligned, tuples only.
function psql(script) {
	const r = spawnSync(PSQL, ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'],
		{ input: script, encoding: 'utf8', maxBuffer: 1 << 28 });
	if (r.error)
		throw r.error;
	return { ok: r.status === 0, out: r.stdout, err: r.stderr.trim() };
}

function psqlOrDie(script, what) {
	const r = psql(script);
	if (!r.ok) {
		console.error(`psql failed (${what}):\n${r.err}`);
		process.exit(1);
	}
	return r.out;
}

// The first error line of psql's stderr, short enough for a table cell:
// no psql prefix, no severity, the data folder left out of file names.
function firstError(err) {
	const line = err.split('\n').find((l) => /ERROR|FATAL|error/.test(l)) || err.split('\n')[0];
	return line.replace(/^psql:[^:]*:\d+: /, '').replace(/^(ERROR|FATAL):\s+/, '')
		.replaceAll(`${DATA_DIR}/`, '').replaceAll('|', '/').slice(0, 120);
}

// Loads heap and file_fdw forms; creates parquet_fdw foreign tables and
// probes each with count(*).  Returns the PostgreSQL forms that can run.
function loadPostgres(meta) {
	const forms = [];
	let s = 'SET client_min_messages = warning;\n';
	s += 'CREATE EXTENSION IF NOT EXISTS file_fdw;\n';
	s += 'CREATE SERVER IF NOT EXISTS bench_csv FOREIGN DATA WRAPPER file_fdw;\n';
	for (const [t, cols] of Object.entries(TABLES)) {
		const csv = path.join(DATA_DIR, `${t}.csv`);
		s += `DROP TABLE IF EXISTS ${t}_heap;\n`;
		s += `CREATE TABLE ${t}_heap (${cols});\n`;
		s += `COPY ${t}_heap FROM ${sqlLit(csv)} (FORMAT csv, HEADER);\n`;
		// Frozen, hint bits set and statistics gathered, as a loaded table is.
		s += `VACUUM (FREEZE, ANALYZE) ${t}_heap;\n`;
		s += `DROP FOREIGN TABLE IF EXISTS ${t}_csv;\n`;
		s += `CREATE FOREIGN TABLE ${t}_csv (${cols}) SERVER bench_csv ` +
			`OPTIONS (filename ${sqlLit(csv)}, format 'csv', header 'true');\n`;
	}
	log('loading the heap tables and creating the file_fdw tables');
	const t0 = performance.now();
	psqlOrDie(s, 'loading heap and file_fdw');
	log(`loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
	forms.push({ id: 'heap', label: 'heap table', rel: (t) => `${t}_heap` });
	forms.push({ id: 'csv', label: 'file_fdw (CSV)', rel: (t) => `${t}_csv` });

	// parquet_fdw: one foreign table per file; a form runs only if its scan works.
	const ext = psql('SET client_min_messages = warning;\n' +
		'CREATE EXTENSION IF NOT EXISTS parquet_fdw;\n' +
		'CREATE SERVER IF NOT EXISTS bench_pq FOREIGN DATA WRAPPER parquet_fdw;\n' +
		"SELECT string_agg(name, ',') FROM pg_settings WHERE name ~ '^parquet_fdw\\..*pushdown';\n");
	let pushdownGuc = null;
	if (ext.ok) {
		// A pushdown GUC appears once the library is loaded (by CREATE SERVER's
		// validator or the first scan); looked up again after the probes below.
		pushdownGuc = ext.out.trim() || null;
	}
	for (const v of RUN_VARIANTS) {
		const form = {
			id: `pq-${v.name}`, label: `parquet_fdw ${v.label}`, variant: v,
			rel: (t) => `${t}_pq_${v.name.replaceAll('-', '_')}`,
		};
		if (v.missing) {
			form.unavailable = v.missing;
		} else if (!ext.ok) {
			form.unavailable = `CREATE EXTENSION parquet_fdw: ${firstError(ext.err)}`;
		} else {
			let p = 'SET client_min_messages = warning;\n';
			for (const [t, cols] of Object.entries(TABLES)) {
				const f = path.join(DATA_DIR, `${t}_${v.name}.parquet`);
				p += `DROP FOREIGN TABLE IF EXISTS ${form.rel(t)};\n`;
				p += `CREATE FOREIGN TABLE ${form.rel(t)} (${cols}) SERVER bench_pq ` +
					`OPTIONS (filename ${sqlLit(f)});\n`;
			}
			for (const t of Object.keys(TABLES))
				p += `SELECT count(*) FROM ${form.rel(t)};\n`;
			p += "SELECT string_agg(name, ',') FROM pg_settings WHERE name ~ '^parquet_fdw\\..*pushdown';\n";
			const r = psql(p);
			if (!r.ok) {
				form.unavailable = firstError(r.err);
			} else {
				const lines = r.out.trim().split('\n');
				const counts = lines.slice(0, 2).map(Number);
				if (counts[0] !== meta.rows.t10m || counts[1] !== meta.rows.lineitem)
					form.unavailable = `count(*) gave ${counts.join('/')} rows, ` +
						`expected ${meta.rows.t10m}/${meta.rows.lineitem}`;
				pushdownGuc = pushdownGuc || lines[2] || null;
			}
		}
		if (form.unavailable)
			log(`${form.label}: not run: ${form.unavailable}`);
		forms.push(form);
	}
	// With a pushdown GUC, parquet_fdw forms run with pushdown off, and the
	// reference file once more with it on.
	if (pushdownGuc && pushdownGuc.includes(','))
		pushdownGuc = pushdownGuc.split(',')[0];
	const ref = forms.find((f) => f.variant === REF);
	if (pushdownGuc && !ref.unavailable) {
		forms.push({ ...ref, id: `pqpush-${REF.name}`, label: `${ref.label} + pushdown`,
			pushdown: true });
	}
	return { forms, pushdownGuc };
}

// One psql session kept open for the runs of one query on one form, so that
// the forms' runs can be interleaved.  exec() sends a script and resolves
// with its output (everything before the end marker it appends); an error
// ends psql (ON_ERROR_STOP) and rejects with the error's first line.
class PsqlSession {
	constructor() {
		this.proc = spawn(PSQL, ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'],
			{ stdio: ['pipe', 'pipe', 'pipe'] });
		this.out = '';
		this.err = '';
		this.seq = 0;
		this.waiter = null;
		this.proc.stdout.setEncoding('utf8');
		this.proc.stderr.setEncoding('utf8');
		this.proc.stdout.on('data', (d) => { this.out += d; this.poll(); });
		this.proc.stderr.on('data', (d) => { this.err += d; });
		this.proc.stdin.on('error', () => { /* psql gone: reported by 'close' */ });
		this.proc.on('close', () => {
			this.closed = true;
			this.poll();
		});
	}

	poll() {
		if (!this.waiter)
			return;
		const { marker, resolve, reject } = this.waiter;
		const at = this.out.indexOf(marker);
		if (at >= 0) {
			const text = this.out.slice(0, at);
			this.out = this.out.slice(at + marker.length);
			this.waiter = null;
			resolve(text);
		} else if (this.closed) {
			this.waiter = null;
			reject(new Error(firstError(this.err || 'psql ended')));
		}
	}

	exec(script) {
		const marker = `@@done ${++this.seq}\n`;
		return new Promise((resolve, reject) => {
			this.waiter = { marker, resolve, reject };
			if (this.closed) {
				this.poll();
				return;
			}
			this.proc.stdin.write(`${script}\n\\echo ${marker}`);
		});
	}

	close() {
		this.proc.stdin.end();
	}
}

// DuckDB values as text, NULL as psql shows it (empty).
function duckValue(v) {
	if (v === null || v === undefined)
		return '';
	return String(v);
}

// Rows and time of one run's psql output (unaligned, tuples only, \timing).
function parseRun(text) {
	const run = { rows: [], ms: null };
	for (const line of text.split('\n')) {
		if (/^Time: [\d.]+ ms/.test(line))
			run.ms = parseFloat(line.slice(6));
		else if (line !== '' && !/^Timing is/.test(line))
			run.rows.push(line.split('|'));
	}
	return run;
}

// Runs query q on every form: one warm-up round, then RUNS timed rounds; in
// each round every form runs once, in turn, so that changes in the machine's
// load fall on all forms alike.  PostgreSQL forms get a fresh session each
// (peak memory is that session's VmHWM); DuckDB runs with 1 and all threads
// on each Parquet file.  Returns { formId: summary }.
async function runQuery(q, pgForms, variants, duck1, duckN, meta, pushdownGuc) {
	const runners = [];
	for (const f of pgForms.filter((x) => !x.unavailable)) {
		const sql = `${q.sql.replaceAll('{t}', f.rel(q.table)).replaceAll('{key}', meta.pointKey)};`;
		const sess = new PsqlSession();
		let setup = 'SET max_parallel_workers_per_gather = 0;\n';
		if (pushdownGuc && f.variant)
			setup += `SET ${pushdownGuc} = ${f.pushdown ? 'on' : 'off'};\n`;
		setup += '\\timing on';
		runners.push({
			id: f.id, runs: [], sess, setupDone: sess.exec(setup),
			run: async () => parseRun(await sess.exec(sql)),
		});
	}
	for (const v of variants) {
		const file = path.join(DATA_DIR, `${q.table}_${v.name}.parquet`);
		const sql = q.sql.replaceAll('{t}', `read_parquet(${sqlLit(file)})`)
			.replaceAll('{key}', meta.pointKey);
		for (const [prefix, con, threads] of [['duck1', duck1, 1], ['duckN', duckN, ALL_THREADS]]) {
			runners.push({
				id: `${prefix}-${v.name}`, runs: [],
				run: async () => {
					// threads is a setting of the whole database, not of a
					// connection: set it before every run, untimed
					await con.run(`SET threads = ${threads}`);
					const t0 = performance.now();
					const res = await con.runAndReadAll(sql);
					const ms = performance.now() - t0;
					return { rows: res.getRows().map((r) => r.map(duckValue)), ms };
				},
			});
		}
	}
	for (let round = 0; round <= RUNS; round++) {
		log(`${q.id}: ${round === 0 ? 'warm-up' : `run ${round}/${RUNS}`} on ${runners.length} forms`);
		for (const r of runners) {
			if (r.error)
				continue;
			try {
				if (r.setupDone)
					await r.setupDone;
				const run = await r.run();
				if (round === 0)
					run.ms = null;
				r.runs.push(run);
			} catch (e) {
				r.error = e.message;
			}
		}
	}
	const out = {};
	for (const r of runners) {
		let memKB = null;
		if (r.sess) {
			if (!r.error) {
				try {
					const text = await r.sess.exec('\\timing off\n' +
						"SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\\s*(\\d+) kB'))[1];");
					memKB = Number(text.trim());
				} catch (e) {
					r.error = e.message;
				}
			}
			r.sess.close();
		}
		out[r.id] = r.error ? { error: r.error } : summarize(r.runs, memKB, q.kinds);
	}
	return out;
}

// ------------------------------------------------------------------ results

// runs[0] is the warm-up; every run must return the warm-up's rows (floats
// within the comparison's tolerance: parallel sums add in varying order).
function summarize(runs, memKB, kinds) {
	if (runs.length !== RUNS + 1)
		return { error: `expected ${RUNS + 1} runs, parsed ${runs.length}` };
	const rows = runs[0].rows;
	for (const r of runs) {
		const diff = compareRows(kinds, rows, r.rows);
		if (diff)
			return { error: `runs of the same form differ: ${diff}` };
	}
	const ms = runs.slice(1).map((r) => r.ms);
	if (ms.some((m) => m === null || Number.isNaN(m)))
		return { error: 'a timed run printed no time' };
	ms.sort((a, b) => a - b);
	return { rows, median: ms[Math.floor(ms.length / 2)], min: ms[0], max: ms[ms.length - 1],
		peakMB: memKB === null ? null : memKB / 1024 };
}

function canonDecimal(s) {
	if (!/^-?\d+(\.\d+)?$/.test(s))
		return s;
	let [ip, fp = ''] = s.split('.');
	fp = fp.replace(/0+$/, '');
	const neg = ip.startsWith('-');
	ip = ip.replace(/^-?0*/, '') || '0';
	const out = fp ? `${ip}.${fp}` : ip;
	return neg && out !== '0' ? `-${out}` : out;
}

// null when equal, else a description of the first difference.
function compareRows(kinds, ref, got) {
	if (ref.length !== got.length)
		return `${got.length} rows, expected ${ref.length}`;
	for (let r = 0; r < ref.length; r++) {
		if (ref[r].length !== kinds.length || got[r].length !== kinds.length)
			return `row ${r + 1}: ${got[r].length} columns, expected ${kinds.length}`;
		for (let c = 0; c < kinds.length; c++) {
			const a = ref[r][c];
			const b = got[r][c];
			let same;
			if (a === '' || b === '')
				same = a === b;
			else if (kinds[c] === 'i' || kinds[c] === 'n')
				same = canonDecimal(a) === canonDecimal(b);
			else if (kinds[c] === 'f') {
				const x = Number(a);
				const y = Number(b);
				same = x === y || Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
			} else
				same = a === b;
			if (!same)
				return `row ${r + 1} column ${c + 1}: ${b}, expected ${a}`;
		}
	}
	return null;
}

// ------------------------------------------------------------------ report

const fmtMs = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const fmtX = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '' : x.toFixed(2));

function machineInfo(pgVersion, duckVersion) {
	let cpu = 'unknown';
	try {
		const m = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m);
		if (m)
			cpu = m[1].trim();
	} catch { /* not Linux */ }
	let flags = '';
	try {
		const f = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:\s*(.*)$/m)[1].split(' ');
		flags = ['avx2', 'avx512f', 'bmi2'].filter((x) => f.includes(x)).join(' ');
	} catch { /* not Linux */ }
	return [
		`- date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
		`- CPU: ${cpu} (${ALL_THREADS} logical cores${flags ? `; ${flags}` : ''}), ` +
			`${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, load average before the run ` +
			`${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
		`- PostgreSQL: ${pgVersion}`,
		`- DuckDB: ${duckVersion} (npm @duckdb/node-api)`,
	];
}

async function main() {
	const db = await DuckDBInstance.create(':memory:');
	const gen = await db.connect();
	const meta = await generate(gen);
	await writeOwn(gen, meta);
	gen.closeSync?.();

	const pgVersion = psqlOrDie('SELECT version();', 'version').trim();
	const settings = psqlOrDie("SELECT string_agg(name || ' = ' || current_setting(name), ', ' ORDER BY name) " +
		"FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'jit');",
		'settings').trim();
	const { forms: pgForms, pushdownGuc } = loadPostgres(meta);

	// DuckDB: one connection per thread count (each run sets its count).
	const duck1 = await db.connect();
	const duckN = await db.connect();

	// results[q.id][form.id] = { rows, median, ... } or { error }
	const results = {};
	for (const q of RUN_QUERIES) {
		results[q.id] = await runQuery(q, pgForms, RUN_VARIANTS.filter((x) => !x.missing),
			duck1, duckN, meta, pushdownGuc);
	}
	const duckVersion = (await duck1.runAndReadAll('SELECT version()')).getRows()[0][0];

	// Check every form against the heap table before any time is reported.
	let mismatches = 0;
	for (const q of RUN_QUERIES) {
		const ref = results[q.id].heap;
		if (!ref || ref.error) {
			console.error(`${q.id}: the heap table gave no result: ${ref && ref.error}`);
			process.exit(1);
		}
		for (const [id, r] of Object.entries(results[q.id])) {
			if (id === 'heap' || r.error)
				continue;
			const diff = compareRows(q.kinds, ref.rows, r.rows);
			if (diff) {
				r.mismatch = diff;
				mismatches++;
				log(`MISMATCH ${q.id} ${id}: ${diff}`);
			}
		}
	}

	// ---- print
	const out = [];
	out.push(`### End to end (\`bench/run.sh\`, BENCH_SCALE=${SCALE})`, '');
	out.push(...machineInfo(pgVersion, duckVersion));
	out.push(`- data: t10m ${meta.rows.t10m.toLocaleString('en-US')} rows, lineitem ` +
		`${meta.rows.lineitem.toLocaleString('en-US')} rows (seed ${SEED}); Parquet by DuckDB and ("ours") by this ` +
		`project's writer (bench/csv2parquet from the same CSV), ` +
		`${ROW_GROUP.toLocaleString('en-US')}-row row groups`);
	out.push(`- PostgreSQL settings: ${settings}; max_parallel_workers_per_gather = 0 ` +
		`for every PostgreSQL query` +
		(pushdownGuc ? `; ${pushdownGuc} off except in the "+ pushdown" row` : ''));
	out.push(`- one warm-up round, then ${RUNS} timed rounds, each running every form once in ` +
		'turn (so load changes hit all forms alike); median in ms; PostgreSQL times are psql\'s ' +
		'\\timing (one session per query and form); DuckDB times are the client clock around ' +
		'runAndReadAll; all rows checked equal to the heap table\'s first');
	out.push('- x heap: median / heap median; x duck1: median / DuckDB 1-thread median on the ' +
		`same file (heap and CSV: the ${REF.label} file); peak MB: VmHWM of the backend ` +
		'(includes the shared buffers it touched)');
	out.push('');

	const sizeOf = (t, v) => (meta.bytes[`${t}_${v.name}.parquet`] / 2 ** 20).toFixed(1);
	out.push('| file | t10m MiB | lineitem MiB | encodings (t10m) |');
	out.push('|------|---------:|-------------:|------------------|');
	out.push(`| CSV | ${(meta.bytes['t10m.csv'] / 2 ** 20).toFixed(1)} | ` +
		`${(meta.bytes['lineitem.csv'] / 2 ** 20).toFixed(1)} | |`);
	for (const v of VARIANTS.filter((x) => !x.missing))
		out.push(`| ${v.label} | ${sizeOf('t10m', v)} | ${sizeOf('lineitem', v)} | ` +
			`${meta.encodings[`t10m_${v.name}`]} |`);
	out.push('');

	const cell = (r) => {
		if (!r)
			return null;
		if (r.error)
			return `ERROR: ${r.error}`;
		if (r.mismatch)
			return `MISMATCH: ${r.mismatch}`;
		return null;
	};
	for (const q of RUN_QUERIES) {
		const R = results[q.id];
		const heapMs = R.heap.median;
		const duckRef = R[`duck1-${REF.name}`];
		out.push(`#### ${q.id}: \`${q.sql.replace(/\s+/g, ' ').replace('{t}', q.table)
			.replace('{key}', meta.pointKey)}\``, '');
		out.push('| form | PG ms | x heap | x duck1 | peak MB | DuckDB 1 thread ms | ' +
			`DuckDB ${ALL_THREADS} threads ms |`);
		out.push('|------|------:|-------:|--------:|--------:|------:|------:|');
		for (const f of pgForms) {
			const r = R[f.id];
			const d1 = f.variant ? R[`duck1-${f.variant.name}`] : null;
			const dN = f.variant ? R[`duckN-${f.variant.name}`] : null;
			const dms = (d) => (d && !cell(d) ? fmtMs(d.median) : (d ? cell(d) : ''));
			const duckCols = f.variant && !f.pushdown ? `${dms(d1)} | ${dms(dN)}` : ' | ';
			if (f.unavailable) {
				out.push(`| ${f.label} | not run | | | | ${duckCols} |`);
				continue;
			}
			const bad = cell(r);
			if (bad) {
				out.push(`| ${f.label} | ${bad} | | | | ${duckCols} |`);
				continue;
			}
			const base = f.variant ? d1 : duckRef;
			const xd = base && !cell(base) ? r.median / base.median : null;
			out.push(`| ${f.label} | ${fmtMs(r.median)} | ${fmtX(r.median / heapMs)} | ` +
				`${fmtX(xd)} | ${r.peakMB === null ? '' : r.peakMB.toFixed(0)} | ${duckCols} |`);
		}
		out.push('');
	}

	const reasons = [...new Set(pgForms.filter((f) => f.unavailable).map((f) => f.unavailable))];
	for (const why of reasons) {
		const which = pgForms.filter((f) => f.unavailable === why).map((f) => f.variant.name);
		out.push(`Not run (${which.length === RUN_VARIANTS.length ? 'every parquet_fdw form' :
			which.join(', ')}): ${why}`, '');
	}

	// ---- goals
	const pqForms = pgForms.filter((f) => f.variant && !f.pushdown);
	const goalLines = [];
	const verdict = (name, checks) => {
		// checks: [{ form, value, ok }] over the forms that ran
		if (checks.length === 0) {
			goalLines.push(`- ${name}: NOT MEASURED (no parquet_fdw form or query ran)`);
			return;
		}
		const failed = checks.filter((c) => !c.ok);
		const worst = checks.reduce((a, b) => (b.value > a.value ? b : a));
		const best = checks.reduce((a, b) => (b.value < a.value ? b : a));
		goalLines.push(`- ${name}: ${failed.length ? 'FAIL' : 'PASS'} ` +
			`(${checks.length - failed.length}/${checks.length} forms; best ${best.value.toFixed(2)} ` +
			`${best.form}, worst ${worst.value.toFixed(2)} ${worst.form})`);
	};
	const ratioChecks = (qid, fn, limit, forms) => (!results[qid] ? [] : forms)
		.map((f) => {
			const r = results[qid][f.id];
			if (!r || r.error || r.mismatch)
				return null;
			const v = fn(r, f);
			return v === null ? null : { form: f.variant.name, value: v, ok: v <= limit };
		})
		.filter(Boolean);
	for (const qid of ['sum3', 'q1', 'q6'])
		verdict(`${qid} through parquet_fdw${pushdownGuc ? ' (pushdown off)' : ''} <= ` +
			`${GOALS.scanVsHeap}x heap (issue #6)`,
			ratioChecks(qid, (r) => r.median / results[qid].heap.median, GOALS.scanVsHeap, pqForms));
	const pushForms = pgForms.filter((f) => f.pushdown && !f.unavailable);
	for (const qid of ['q1', 'q6']) {
		if (pushForms.length === 0 || !results[qid]) {
			goalLines.push(`- ${qid} with aggregate pushdown <= ${GOALS.pushdownVsDuck1}x DuckDB ` +
				'1 thread (issue #6): NOT MEASURED (no pushdown GUC parquet_fdw.*pushdown*)');
			continue;
		}
		verdict(`${qid} with aggregate pushdown <= ${GOALS.pushdownVsDuck1}x DuckDB 1 thread (issue #6)`,
			ratioChecks(qid, (r, f) => r.median / results[qid][`duck1-${f.variant.name}`].median,
				GOALS.pushdownVsDuck1, pushForms));
		verdict(`${qid} (published text) with aggregate pushdown <= ${GOALS.tpchVsDuck1}x DuckDB ` +
			'1 thread (issue #12)',
			ratioChecks(qid, (r, f) => r.median / results[qid][`duck1-${f.variant.name}`].median,
				GOALS.tpchVsDuck1, pushForms));
	}
	const memChecks = [];
	for (const f of pgForms.filter((x) => x.variant))
		for (const q of RUN_QUERIES) {
			const r = results[q.id][f.id];
			if (r && !r.error && r.peakMB !== null)
				memChecks.push({ form: `${f.variant.name}${f.pushdown ? '+pushdown' : ''} ${q.id}`,
					value: r.peakMB, ok: r.peakMB < GOALS.peakMB });
		}
	if (memChecks.length) {
		const worst = memChecks.reduce((a, b) => (b.value > a.value ? b : a));
		const failed = memChecks.filter((c) => !c.ok).length;
		goalLines.push(`- peak backend memory of every parquet_fdw query < ${GOALS.peakMB} MB ` +
			`(issue #6): ${failed ? 'FAIL' : 'PASS'} (${memChecks.length - failed}/${memChecks.length}` +
			` queries; highest ${worst.value.toFixed(0)} MB, ${worst.form})`);
	} else {
		goalLines.push(`- peak backend memory of every parquet_fdw query < ${GOALS.peakMB} MB ` +
			'(issue #6): NOT MEASURED (no parquet_fdw form ran)');
	}
	verdict('point lookup <= 1/20 of the full scan (sum3) through parquet_fdw (issue #4)',
		ratioChecks('point', (r, f) => {
			const s = results.sum3 && results.sum3[f.id];
			return s && !s.error && !s.mismatch ? r.median / s.median : null;
		}, GOALS.pointVsScan, pqForms));
	// ---- summary: every PostgreSQL form's ratio to the heap table, per query
	out.push('Summary, median / heap median (DuckDB: 1 thread on the same file):', '');
	out.push(`| form | ${RUN_QUERIES.map((q) => q.id).join(' | ')} |`);
	out.push(`|------|${RUN_QUERIES.map(() => '-----:').join('|')}|`);
	const ratioCell = (q, r) => (!r || r.error || r.mismatch ? (r ? 'ERR' : '') :
		fmtX(r.median / results[q.id].heap.median));
	for (const f of pgForms.filter((x) => !x.unavailable))
		out.push(`| ${f.label} | ${RUN_QUERIES.map((q) => ratioCell(q, results[q.id][f.id])).join(' | ')} |`);
	for (const v of RUN_VARIANTS.filter((x) => !x.missing))
		out.push(`| DuckDB 1 thread ${v.label} | ` +
			`${RUN_QUERIES.map((q) => ratioCell(q, results[q.id][`duck1-${v.name}`])).join(' | ')} |`);
	out.push('');
	out.push(`Load average after the run: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`, '');

	out.push('Goals:', '', ...goalLines, '');
	if (mismatches)
		out.push(`**${mismatches} result(s) differ from the heap table's; their times are not shown.**`, '');

	const text = out.join('\n');
	console.log(text);
	if (process.env.BENCH_OUT)
		fs.writeFileSync(process.env.BENCH_OUT, `${text}\n`);
	duck1.closeSync?.();
	duckN.closeSync?.();
	process.exitCode = mismatches ? 1 : 0;
}

await main();
