// ClickBench-shaped benchmark driver: the 43 queries of queries.sql over the
// generated `hits` (gen.mjs) as a heap table, as a parquet_fdw foreign table
// (serial, and with 2 parallel workers) and read by DuckDB with 1 and 2
// threads from the same Parquet file.  Every answer is compared with the
// heap table's; times are the best of BENCH_RUNS; the report (markdown, to
// stdout and BENCH_OUT) has per query the times, the ratios, whether the
// aggregate was pushed down (and if not, EXPLAIN's reason), the peak
// backend memory (VmHWM), and the geometric means.
//
// Started by run.sh (cluster, build, DuckDB).  By hand, with a server up:
//   BENCH_NODE_MODULES=$HOME/.cache/parquet_fdw node bench/clickbench/bench.mjs
//
// Environment: BENCH_ROWS (2000000; BENCH_QUICK=1: 200000), BENCH_SEED (1),
// BENCH_RUNS (3), BENCH_DATA_DIR (/var/tmp/parquet_fdw-clickbench),
// BENCH_QUERIES (e.g. "0,3,20-23"), BENCH_TIMEOUT_S (per PostgreSQL
// statement, 300), BENCH_OUT, BENCH_PSQL, BENCH_NODE_MODULES.
// Exit status 1 when an answer differs from the heap table's.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate, hitsColumns } from './gen.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = process.env.BENCH_NODE_MODULES || process.cwd();
const requireFrom = createRequire(path.join(MODULES, 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(requireFrom.resolve('@duckdb/node-api')).href);

const ROWS = parseInt(process.env.BENCH_ROWS || (process.env.BENCH_QUICK === '1' ? '200000' : '2000000'), 10);
const SEED = parseInt(process.env.BENCH_SEED || '1', 10);
const RUNS = parseInt(process.env.BENCH_RUNS || '3', 10);
const TIMEOUT_S = parseInt(process.env.BENCH_TIMEOUT_S || '300', 10);
const PSQL = process.env.BENCH_PSQL || 'psql';
const DATA_DIR = path.join(process.env.BENCH_DATA_DIR || '/var/tmp/parquet_fdw-clickbench',
	`rows${ROWS}-seed${SEED}`);
const log = (...a) => console.error('[clickbench]', ...a);
const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;

// ------------------------------------------------------------------ queries

const QUERIES = fs.readFileSync(path.join(HERE, 'queries.sql'), 'utf8')
	.split('\n').filter((l) => l.trim() !== '').map((l) => l.replace(/;\s*$/, ''));
if (QUERIES.length !== 43)
	throw new Error(`queries.sql: ${QUERIES.length} queries, not 43`);

// How each query's answer is compared (output columns counted from 0):
// 'set'    no total order: the rows as a multiset;
// [k...]   ORDER BY those output columns with LIMIT: the sequence of their
//          values must be equal, and so must the rows whose key is not
//          tied with the first or the last row's (ties may cross the cut);
// 'count'  LIMIT without ORDER BY: any n groups are right, the row count.
const CHECK = {
	8: [1], 9: [2], 10: [1], 11: [2], 12: [1], 13: [1], 14: [2], 15: [1], 16: [2],
	17: 'count', 18: [3], 21: [2], 22: [3], 23: [4], 25: [0], 27: [1], 28: [1],
	30: [2], 31: [2], 32: [2], 33: [1], 34: [2], 35: [4], 36: [1], 37: [1], 38: [1],
	39: [5], 40: [2], 41: [2], 42: [0],
};

function selected() {
	if (!process.env.BENCH_QUERIES)
		return QUERIES.map((_, i) => i);
	const out = [];
	for (const part of process.env.BENCH_QUERIES.split(',')) {
		const [a, b] = part.split('-').map((x) => parseInt(x, 10));
		for (let i = a; i <= (Number.isNaN(b) || b === undefined ? a : b); i++)
			out.push(i);
	}
	return out;
}

// ------------------------------------------------------------------ answers

// Output columns that are averages: PostgreSQL's avg is numeric, DuckDB's
// a double, so they are compared to 10 significant digits.
const AVERAGES = {
	2: [2], 3: [0], 9: [3], 27: [1], 28: [1], 30: [4], 31: [4], 32: [4],
};

// One cell as compared: averages rounded (above), timestamps without a
// trailing ".000"; anything else exactly as printed.
function canon(v, qi, col) {
	const s = v === null || v === undefined ? '' : String(v);
	if ((AVERAGES[qi] || []).includes(col) && s !== '')
		return Number(s).toPrecision(10);
	return s.replace(/^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(\.0+)?$/, '$1').replace('T', ' ');
}

const multiset = (rows) => rows.map((r) => r.join('\x1f')).sort();
const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// Does `got` answer query qi as `want` (the heap table's) does?
function sameAnswer(qi, want, got) {
	const check = CHECK[qi] || 'set';
	if (check === 'count')
		return want.length === got.length;
	if (check === 'set')
		return sameList(multiset(want), multiset(got));
	const key = (r) => check.map((k) => r[k]).join('\x1f');
	if (!sameList(want.map(key), got.map(key)))
		return false;
	if (want.length === 0)
		return true;
	const edge = new Set([key(want[0]), key(want[want.length - 1])]);
	const inner = (rows) => multiset(rows.filter((r) => !edge.has(key(r))));
	return sameList(inner(want), inner(got));
}

// ------------------------------------------------------------------ PostgreSQL

function psql(script) {
	const r = spawnSync(PSQL, ['-X', '-q', '-A', '-t', '-F', '\x1f', '-v', 'ON_ERROR_STOP=1', '-f', '-'],
		{ input: script, encoding: 'utf8', maxBuffer: 1 << 30 });
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

function loadPostgres(files) {
	const cols = hitsColumns();
	const decl = cols.map(([n, t]) => `${n} ${t} NOT NULL`).join(', ');
	const keys = 'PRIMARY KEY (counterid, eventdate, userid, eventtime, watchid)';
	const have = psql(`SELECT count(*) FROM hits_heap`);
	let s = 'SET client_min_messages = warning;\n';
	if (!have.ok || parseInt(have.out, 10) !== ROWS) {
		log('loading the heap table (COPY from CSV, primary key as published, VACUUM ANALYZE)');
		s += 'DROP TABLE IF EXISTS hits_heap;\n';
		s += `CREATE TABLE hits_heap (${decl}, ${keys});\n`;
		s += `COPY hits_heap FROM ${lit(files.csv)} (FORMAT csv);\n`;
		s += 'VACUUM (FREEZE, ANALYZE) hits_heap;\n';
	}
	s += 'CREATE EXTENSION IF NOT EXISTS parquet_fdw;\n';
	s += 'CREATE SERVER IF NOT EXISTS clickbench_pq FOREIGN DATA WRAPPER parquet_fdw;\n';
	s += 'DROP FOREIGN TABLE IF EXISTS hits_pq;\n';
	s += `CREATE FOREIGN TABLE hits_pq (${cols.map(([n, t]) => `${n} ${t}`).join(', ')}) ` +
		`SERVER clickbench_pq OPTIONS (filename ${lit(files.parquet)});\n`;
	s += 'ANALYZE hits_pq;\n';
	const t0 = performance.now();
	psqlOrDie(s, 'loading');
	log(`PostgreSQL tables ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// One session: the plan's pushdown line, RUNS timed runs (the first run's
// rows are the answer), then the backend's peak memory.
function runPostgres(qi, rel, workers) {
	const sql = QUERIES[qi].replace(/\bhits\b/g, rel);
	let s = `SET max_parallel_workers_per_gather = ${workers};\n`;
	s += `SET statement_timeout = '${TIMEOUT_S}s';\n`;
	s += `SET extra_float_digits = 0;\n`;
	s += `\\echo @explain\nEXPLAIN (VERBOSE, COSTS OFF) ${sql};\n`;
	s += '\\timing on\n';
	for (let r = 0; r < RUNS; r++)
		s += `\\echo @run\n${sql};\n`;
	s += '\\timing off\n\\echo @memory\n';
	s += "SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s*(\\d+) kB');\n";
	const r = psql(s);
	const res = { ms: null, rows: null, pushed: null, refused: null, hwmKB: null, error: null };
	if (!r.ok) {
		const line = r.err.split('\n').find((l) => /ERROR/.test(l)) || r.err.split('\n')[0];
		res.error = /statement timeout/.test(line) ? `timeout ${TIMEOUT_S} s` :
			line.replace(/^psql:[^:]*:\d+: /, '').slice(0, 100);
	}
	let part = null;
	const runs = [];
	for (const line of r.out.split('\n')) {
		if (line === '@explain' || line === '@memory') {
			part = line;
			continue;
		}
		if (line === '@run') {
			part = '@run';
			runs.push({ rows: [], ms: null });
			continue;
		}
		if (part === '@explain') {
			const m = line.match(/Aggregate Pushdown: (.*)$/);
			if (m) {
				const no = m[1].match(/^not used \((.*)\)$/);
				res.pushed = !no;
				if (no)
					res.refused = no[1];
			}
		} else if (part === '@run') {
			const t = line.match(/^Time: ([\d.]+) ms/);
			if (t)
				runs[runs.length - 1].ms = parseFloat(t[1]);
			else if (line !== '')
				runs[runs.length - 1].rows.push(line.split('\x1f').map((v, c) => canon(v, qi, c)));
		} else if (part === '@memory' && /^\d+$/.test(line))
			res.hwmKB = parseInt(line, 10);
	}
	const done = runs.filter((x) => x.ms !== null);
	if (done.length === RUNS && !res.error) {
		res.rows = done[0].rows;
		res.ms = Math.min(...done.map((x) => x.ms));
	}
	return res;
}

// ------------------------------------------------------------------ DuckDB

async function runDuck(con, qi, threads) {
	await con.run(`SET threads = ${threads}`);
	let best = Infinity;
	let rows = null;
	for (let r = 0; r < RUNS; r++) {
		const t0 = performance.now();
		const res = await con.runAndReadAll(QUERIES[qi]);
		best = Math.min(best, performance.now() - t0);
		if (rows === null)
			rows = res.getRows().map((row) => row.map((v, c) => canon(v === null ? '' : String(v), qi, c)));
	}
	return { ms: best, rows };
}

// ------------------------------------------------------------------ report

const fmt = (ms) => (ms === null || ms === undefined ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const ratio = (a, b) => (a && b ? a / b : null);
const fr = (x) => (x === null ? '-' : x.toFixed(2));
const geo = (xs) => {
	const v = xs.filter((x) => x !== null && x > 0);
	return v.length ? Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length) : null;
};

function report(results, meta) {
	const out = [];
	out.push(`ClickBench-shaped hits: ${ROWS} rows (seed ${SEED}), ${meta.parquetMB} MB Parquet ` +
		`(DuckDB ${meta.duckdb}, snappy), PostgreSQL ${meta.pg}; best of ${RUNS} runs; ` +
		`${os.cpus().length} CPUs, load average before/after ${meta.loadBefore} / ${os.loadavg()[0].toFixed(2)}.`);
	out.push('');
	out.push('| Q | heap ms | pq ms | pq 2w ms | duck1 ms | duck2 ms | pq/heap | pq/duck1 | pq2w/duck2 | pushdown | pq peak MB | answers |');
	out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
	const r1 = []; const r2 = []; const rh = [];
	let pushed = 0;
	for (const r of results) {
		const a = ratio(r.pq.ms, r.heap.ms); const b = ratio(r.pq.ms, r.duck1.ms);
		const c = ratio(r.pq2.ms, r.duck2.ms);
		rh.push(a); r1.push(b); r2.push(c);
		if (r.pq.pushed)
			pushed++;
		const pd = r.pq.pushed ? 'yes' : r.pq.refused ? 'no' : '-';
		const cell = (x) => (x.error ? x.error : fmt(x.ms));
		out.push(`| ${r.qi} | ${cell(r.heap)} | ${cell(r.pq)} | ${cell(r.pq2)} | ${fmt(r.duck1.ms)} | ` +
			`${fmt(r.duck2.ms)} | ${fr(a)} | ${fr(b)} | ${fr(c)} | ${pd} | ` +
			`${r.pq.hwmKB ? (r.pq.hwmKB / 1024).toFixed(0) : '-'} | ${r.answers} |`);
	}
	out.push('');
	out.push(`Geometric means: parquet_fdw / heap ${fr(geo(rh))}, parquet_fdw / DuckDB 1 thread ${fr(geo(r1))}, ` +
		`parquet_fdw 2 workers / DuckDB 2 threads ${fr(geo(r2))}; aggregate pushdown on ${pushed} of ${results.length}; ` +
		`answers differing from the heap table: ${results.filter((r) => r.answers !== 'ok').length}.`);
	out.push('');
	out.push('Why pushdown was not used (EXPLAIN VERBOSE of the serial foreign scan):');
	out.push('');
	for (const r of results)
		if (r.pq.refused)
			out.push(`- Q${r.qi}: ${r.pq.refused.replaceAll('|', '/')}`);
	return out.join('\n');
}

// ------------------------------------------------------------------ main

const loadBefore = os.loadavg()[0].toFixed(2);
const db = await DuckDBInstance.create(':memory:');
const duck = await db.connect();
const files = await generate(duck, DATA_DIR, ROWS, SEED, log);
await duck.run(`CREATE VIEW hits AS SELECT * FROM read_parquet(${lit(files.parquet)})`);
loadPostgres(files);
const meta = {
	loadBefore,
	parquetMB: (fs.statSync(files.parquet).size / 1e6).toFixed(0),
	duckdb: (await duck.runAndReadAll('SELECT version()')).getRows()[0][0],
	pg: psqlOrDie("SHOW server_version", 'version').trim(),
};
const results = [];
let differ = 0;
for (const qi of selected()) {
	const r = { qi };
	r.heap = runPostgres(qi, 'hits_heap', 0);
	r.pq = runPostgres(qi, 'hits_pq', 0);
	r.pq2 = runPostgres(qi, 'hits_pq', 2);
	r.duck1 = await runDuck(duck, qi, 1);
	r.duck2 = await runDuck(duck, qi, 2);
	const bad = [];
	if (r.heap.rows === null)
		bad.push('heap failed');
	else
		for (const [name, x] of [['pq', r.pq], ['pq 2w', r.pq2], ['duck1', r.duck1], ['duck2', r.duck2]])
			if (x.rows !== null && !sameAnswer(qi, r.heap.rows, x.rows))
				bad.push(`${name} differs`);
	r.answers = bad.length ? bad.join(', ') : 'ok';
	if (bad.length)
		differ++;
	log(`Q${qi}: heap ${fmt(r.heap.ms)} pq ${r.pq.error || fmt(r.pq.ms)} pq2 ${r.pq2.error || fmt(r.pq2.ms)} ` +
		`duck1 ${fmt(r.duck1.ms)} duck2 ${fmt(r.duck2.ms)} pushed ${r.pq.pushed} ${r.pq.refused || ''} ` +
		`answers ${r.answers}`);
	results.push(r);
}
const text = report(results, meta);
console.log(text);
if (process.env.BENCH_OUT)
	fs.writeFileSync(process.env.BENCH_OUT, `${text}\n`);
process.exit(differ ? 1 : 0);
