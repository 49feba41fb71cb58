// Regenerates examples/sample.parquet with DuckDB.
//
//   node /path/to/repo/examples/make_sample.mjs /path/to/repo/examples/sample.parquet
//
// Run it from a folder whose node_modules holds @duckdb/node-api, outside
// the repository (e.g. ${XDG_CACHE_HOME:-$HOME/.cache}/parquet_fdw, where
// test/generated/generate.sh installs it).
// 1000 rows of (id bigint, name text, price decimal(10,2), day date,
// ts timestamp, tags varchar[], ok boolean), ZSTD-compressed, deterministic.
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// Resolve @duckdb/node-api from the current folder, not from this file's.
const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const out = path.resolve(process.argv[2] ?? 'sample.parquet');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`
  CREATE TABLE sample AS
  SELECT i::BIGINT                                         AS id,
         CASE WHEN i % 97 = 0 THEN NULL
              ELSE 'item-' || lpad(i::VARCHAR, 4, '0') END AS name,
         ((i * 7919) % 100000 / 100.0)::DECIMAL(10,2)      AS price,
         (DATE '2024-01-01' + (i % 366)::INTEGER)          AS day,
         (TIMESTAMP '2024-01-01 00:00:00'
            + to_seconds(i * 3607))::TIMESTAMP             AS ts,
         CASE WHEN i % 10 = 0 THEN NULL
              WHEN i % 10 = 1 THEN []::VARCHAR[]
              ELSE list_transform(range(i % 4),
                     x -> (['red','green','blue','gold'])[x + 1]) END AS tags,
         (i % 3 <> 0)                                      AS ok
  FROM range(1, 1001) t(i)
  ORDER BY i`);
await con.run(`COPY sample TO '${out.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd)`);
const r = await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${out.replaceAll("'", "''")}')`);
console.log(`wrote ${out}: ${r.getRowObjects()[0].n} rows`);
