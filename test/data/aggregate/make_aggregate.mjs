// Regenerates test/data/aggregate/aggregate.parquet and aggregate_plain.parquet,
// the fixtures of sql/aggregate.sql (aggregate pushdown), with DuckDB; a
// folder of their own, since other tests read every file of data/:
//
//   node /path/to/repo/test/data/aggregate/make_aggregate.mjs [OUT_DIR]   (default: its own folder)
//
// run from a folder whose node_modules holds @duckdb/node-api (e.g.
// $HOME/.cache/parquet_fdw, where bench/run.sh installs it).
//
// 12000 lineitem-like rows, i = 0..11999, in row groups of 3000 rows; the
// same rows in both files, aggregate.parquet with DuckDB's dictionaries,
// aggregate_plain.parquet without (DICTIONARY_SIZE_LIMIT 0).  Every value
// is a formula of i:
//   l_orderkey      bigint         i
//   l_quantity      decimal(15,2)  1 + i % 50                      (INT64)
//   l_extendedprice decimal(15,2)  900 + ((i * 7919) % 1000000) / 100
//   l_discount      decimal(15,2)  (i % 11) / 100
//   l_tax           decimal(15,2)  (i % 9) / 100
//   l_returnflag    varchar        'A', 'N', 'R' by i % 3; NULL when i % 97 = 0
//   l_linestatus    varchar        'F', 'O' by (i / 5) % 2
//   l_shipdate      date           1992-01-01 + (i * 13) % 2500; NULL when i % 89 = 0
//   q2              decimal(9,2)   ((i % 2000) - 1000) / 100     (INT32)
//   wide            decimal(38,4)  (i % 10) * 10^33 + (i % 10000) / 10^4
//                                  (FIXED_LEN_BYTE_ARRAY; sums pass int128)
//   i2              smallint       i % 30000 - 15000
//   i4              integer        i * 1000 - 5000000; NULL when i % 7 = 0
//   i8              bigint         2^62 + i (sums pass 2^63)
//   f4              float          i / 8
//   f8              double         i * 0.1 (sums depend on the order)
//   fn              double         i / 4, NaN when i % 4001 = 0, -inf when i = 5
//   b               boolean        i % 3 = 0; NULL when i % 10 = 0
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const dir = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));
const q = (s) => s.replaceAll("'", "''");
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads = 1`);
await con.run(`
  CREATE TABLE agg AS
  SELECT i::BIGINT AS l_orderkey,
         (1 + i % 50)::DECIMAL(15,2) AS l_quantity,
         (900 + ((i * 7919) % 1000000)::DECIMAL(15,2) / 100)::DECIMAL(15,2) AS l_extendedprice,
         ((i % 11)::DECIMAL(15,2) / 100)::DECIMAL(15,2) AS l_discount,
         ((i % 9)::DECIMAL(15,2) / 100)::DECIMAL(15,2) AS l_tax,
         CASE WHEN i % 97 = 0 THEN NULL ELSE (['A', 'N', 'R'])[1 + (i % 3)::INTEGER] END AS l_returnflag,
         (['F', 'O'])[1 + ((i // 5) % 2)::INTEGER] AS l_linestatus,
         CASE WHEN i % 89 = 0 THEN NULL ELSE DATE '1992-01-01' + ((i * 13) % 2500)::INTEGER END AS l_shipdate,
         (((i % 2000) - 1000)::DECIMAL(9,2) / 100)::DECIMAL(9,2) AS q2,
         (((i % 10)::HUGEINT * 1000000000000000000000000000000000::HUGEINT)::VARCHAR
          || '.' || lpad((i % 10000)::VARCHAR, 4, '0'))::DECIMAL(38,4) AS wide,
         (i % 30000 - 15000)::SMALLINT AS i2,
         CASE WHEN i % 7 = 0 THEN NULL ELSE (i * 1000 - 5000000)::INTEGER END AS i4,
         (4611686018427387904 + i)::BIGINT AS i8,
         (i / 8)::FLOAT AS f4,
         (i * 0.1::DOUBLE) AS f8,
         CASE WHEN i % 4001 = 0 THEN 'NaN'::DOUBLE WHEN i = 5 THEN '-inf'::DOUBLE
              ELSE i / 4 END::DOUBLE AS fn,
         CASE WHEN i % 10 = 0 THEN NULL ELSE i % 3 = 0 END AS b
  FROM range(0, 12000) t(i)
  ORDER BY i`);
for (const [name, extra] of [['aggregate.parquet', ''],
	['aggregate_plain.parquet', ', DICTIONARY_SIZE_LIMIT 0']]) {
	const out = path.join(dir, name);
	await con.run(`COPY agg TO '${q(out)}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 3000${extra})`);
	const r = await con.runAndReadAll(
		`SELECT count(DISTINCT row_group_id) AS rgs, string_agg(DISTINCT path_in_schema || ':' || type, ' ') AS types
		 FROM parquet_metadata('${q(out)}')`);
	console.log(`wrote ${out}:`, r.getRowObjects()[0]);
}
