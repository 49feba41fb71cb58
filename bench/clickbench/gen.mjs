// The ClickBench-shaped `hits` table, generated with DuckDB: the 105
// columns of create.sql, deterministic (DuckDB's hash() of the row number,
// the column and the seed), with distributions shaped like the real data:
// visits clustered by user (a user keeps IP, region, screen, phone), URLs
// and titles repeated, a few percent of them with 'google' / 'Google', most
// search phrases empty, CounterID 62 the big counter, EventTime over July
// 2013, many columns nearly always zero or empty.  The rows are ordered by
// the table's primary key, as the published hits files are.
//
// generate(duck, dir, rows, seed) writes dir/hits.parquet (snappy, DuckDB's
// default row groups) and dir/hits.csv (for the heap table's COPY) unless
// dir/stamp.json says they are current.  Returns { parquet, csv, rows }.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// create.sql's columns: [name in lower case, type as written]
export function hitsColumns() {
	const ddl = fs.readFileSync(path.join(HERE, 'create.sql'), 'utf8');
	return [...ddl.matchAll(/^\s+(\w+)\s+(.+?)\s+NOT NULL,?$/gm)]
		.map((m) => [m[1].toLowerCase(), m[2]]);
}

// DuckDB's spelling of each PostgreSQL type of create.sql
const DUCK_TYPE = {
	BIGINT: 'BIGINT', SMALLINT: 'SMALLINT', INTEGER: 'INTEGER', TEXT: 'VARCHAR',
	TIMESTAMP: 'TIMESTAMP', Date: 'DATE', 'VARCHAR(255)': 'VARCHAR', CHAR: 'VARCHAR',
};

// Value of each column.  u(k, m): uniform 0..m-1 for this row and key k;
// p(k, m): the same per user (the same for every visit of one user).
const list = (...xs) => `[${xs.map((x) => (typeof x === 'string' ? `'${x}'` : x)).join(', ')}]`;
const pick = (xs, r) => `${xs}[1 + ${r}]`;
const EXPR = {
	watchid: '(hash(i, 1, seed) >> 1)::BIGINT',
	javaenable: 'u(2, 10) < 7',
	title: `CASE WHEN u(3, 10) < 2 THEN '' ELSE ${pick(list('Купить', 'News', 'Weather',
		'Video', 'Maps', 'Auto', 'Sport', 'Music', 'Games', 'Travel', 'Films', 'Jobs'), 'u(4, 12)')}
		|| ' ' || least(u(5, 20000), u(6, 20000))::VARCHAR
		|| CASE WHEN u(7, 30) = 0 THEN ' - Google Search' ELSE ' - site' END END`,
	goodevent: '1',
	eventtime: 'et',
	eventdate: 'et::DATE',
	counterid: 'CASE WHEN u(8, 100) < 25 THEN 62 ELSE 1 + (u(9, 300) * u(10, 300)) % 30000 END',
	clientip: '(p(11, 4294967296) - 2147483648)',
	regionid: '1 + least(p(12, 4000), p(13, 4000))',
	userid: 'CASE WHEN ui = 7 THEN 435090932899640449 ELSE (hash(ui, 14, seed) >> 1)::BIGINT END',
	counterclass: 'u(15, 3)',
	os: 'p(16, 90)',
	useragent: 'p(17, 60)',
	url: 'url',
	referer: 'referer',
	isrefresh: 'u(18, 10) = 0',
	referercategoryid: 'u(19, 20)',
	refererregionid: 'u(20, 5000)',
	urlcategoryid: 'u(21, 20)',
	urlregionid: 'u(22, 5000)',
	resolutionwidth: `${list(1024, 1280, 1366, 1440, 1600, 1920, 2560, 800, 0, 1536)}[1 + p(23, 10)]`,
	resolutionheight: `${list(768, 1024, 768, 900, 900, 1080, 1440, 600, 0, 864)}[1 + p(23, 10)]`,
	resolutiondepth: `${list(24, 32, 16)}[1 + p(24, 3)]`,
	flashmajor: 'p(25, 12)',
	flashminor: 'p(26, 10)',
	flashminor2: pick(list('', '0', '1', '2', '13', '159'), 'p(27, 6)'),
	netmajor: 'u(28, 5)',
	netminor: 'u(29, 10)',
	useragentmajor: 'p(30, 40)',
	useragentminor: pick(list('0', '1', '2', '5', '11', 'E', '1B'), 'p(31, 7)'),
	cookieenable: 'u(32, 50) <> 0',
	javascriptenable: 'u(33, 50) <> 0',
	ismobile: 'mobile',
	mobilephone: 'CASE WHEN mobile THEN 1 + p(34, 40) ELSE 0 END',
	mobilephonemodel: `CASE WHEN mobile THEN ${pick(list('iPad', 'iPhone', 'Galaxy S4', 'Lumia 920',
		'HTC One', 'Xperia Z', 'Nexus 4', 'Optimus G', 'GT-I9100', 'A820'), 'least(p(35, 10), p(36, 10))')}
		ELSE '' END`,
	params: "CASE WHEN u(37, 20) = 0 THEN 'utm=' || u(38, 500)::VARCHAR ELSE '' END",
	ipnetworkid: 'p(39, 100000)',
	traficsourceid: pick(list(-1, 0, 0, 0, 0, 1, 2, 2, 3, 4, 5, 6, 6, 7, 8, 9), 'u(40, 16)'),
	searchengineid: 'CASE WHEN searching THEN 1 + least(u(41, 30), u(42, 30)) ELSE 0 END',
	searchphrase: 'phrase',
	advengineid: 'CASE WHEN u(43, 100) < 3 THEN 1 + u(44, 30) ELSE 0 END',
	isartifical: '0',
	windowclientwidth: 'greatest(0, resolutionwidth - u(45, 120))',
	windowclientheight: 'greatest(0, resolutionheight - u(46, 200))',
	clienttimezone: 'tz',
	clienteventtime: 'et + to_seconds(u(47, 120) - 60)',
	silverlightversion1: 'CASE WHEN p(48, 5) = 0 THEN 5 ELSE 0 END',
	silverlightversion2: 'CASE WHEN p(48, 5) = 0 THEN 1 ELSE 0 END',
	silverlightversion3: 'CASE WHEN p(48, 5) = 0 THEN 20416 + p(49, 100) ELSE 0 END',
	silverlightversion4: 'CASE WHEN p(48, 5) = 0 THEN 1 ELSE 0 END',
	pagecharset: pick(list('utf-8', 'windows-1251', 'koi8-r'), 'least(u(50, 3), u(51, 3))'),
	codeversion: pick(list(0, 500, 1100, 1900, 2300), 'u(52, 5)'),
	islink: 'u(53, 30) = 0',
	isdownload: 'u(54, 100) = 0',
	isnotbounce: 'u(55, 10) < 3',
	funiqid: 'CASE WHEN p(56, 2) = 0 THEN 0 ELSE (hash(ui, 57, seed) >> 1)::BIGINT END',
	originalurl: "CASE WHEN u(58, 20) = 0 THEN url ELSE '' END",
	hid: '(hash(i, 59, seed) % 2147483647)::INTEGER',
	isoldcounter: '0',
	isevent: 'u(60, 50) = 0',
	isparameter: '0',
	dontcounthits: 'u(61, 20) = 0',
	withhash: 'u(62, 100) = 0',
	hitcolor: pick(list('D', 'E', 'F', 'T'), 'u(63, 4)'),
	localeventtime: 'et + to_seconds(tz * 3600)',
	age: 'p(64, 7)',
	sex: 'p(65, 3)',
	income: 'p(66, 5)',
	interests: 'p(67, 1000)',
	robotness: 'u(68, 50) = 0',
	remoteip: '(p(69, 4294967296) - 2147483648)',
	windowname: 'CASE WHEN u(70, 10) < 7 THEN -1 ELSE u(71, 100000) END',
	openername: 'CASE WHEN u(72, 10) < 7 THEN -1 ELSE u(73, 100000) END',
	historylength: 'u(74, 20)',
	browserlanguage: pick(list('ru', 'en', 'uk', 'de', 'tr', 'be'), 'least(p(75, 6), p(76, 6))'),
	browsercountry: pick(list('RU', 'UA', 'BY', 'KZ', 'DE', 'US', 'TR'), 'least(p(77, 7), p(78, 7))'),
	socialnetwork: `CASE WHEN u(79, 50) = 0 THEN ${pick(list('vk', 'fb', 'ok', 'tw'), 'u(80, 4)')} ELSE '' END`,
	socialaction: "CASE WHEN u(81, 100) = 0 THEN 'like' ELSE '' END",
	httperror: 'CASE WHEN u(82, 100) = 0 THEN 404 ELSE 0 END',
	sendtiming: 'CASE WHEN u(83, 2) = 0 THEN u(84, 1000) ELSE 0 END',
	dnstiming: 'CASE WHEN u(83, 2) = 0 THEN u(85, 300) ELSE 0 END',
	connecttiming: 'CASE WHEN u(83, 2) = 0 THEN u(86, 500) ELSE 0 END',
	responsestarttiming: 'CASE WHEN u(83, 2) = 0 THEN u(87, 2000) ELSE 0 END',
	responseendtiming: 'CASE WHEN u(83, 2) = 0 THEN u(88, 3000) ELSE 0 END',
	fetchtiming: 'CASE WHEN u(83, 2) = 0 THEN u(89, 5000) ELSE 0 END',
	socialsourcenetworkid: 'CASE WHEN u(90, 100) = 0 THEN 1 + u(91, 5) ELSE 0 END',
	socialsourcepage: "CASE WHEN u(90, 100) = 0 THEN '/page/' || u(92, 100)::VARCHAR ELSE '' END",
	paramprice: 'CASE WHEN u(93, 100) = 0 THEN u(94, 100000) ELSE 0 END',
	paramorderid: "CASE WHEN u(93, 100) = 0 THEN 'order' || u(95, 100000)::VARCHAR ELSE '' END",
	paramcurrency: `CASE WHEN u(93, 100) = 0 THEN ${pick(list('RUB', 'USD', 'EUR'), 'u(96, 3)')} ELSE '' END`,
	paramcurrencyid: 'CASE WHEN u(93, 100) = 0 THEN 1 + u(96, 3) ELSE 0 END',
	openstatservicename: "CASE WHEN u(97, 200) = 0 THEN 'direct' ELSE '' END",
	openstatcampaignid: "CASE WHEN u(97, 200) = 0 THEN u(98, 1000)::VARCHAR ELSE '' END",
	openstatadid: "CASE WHEN u(97, 200) = 0 THEN u(99, 10000)::VARCHAR ELSE '' END",
	openstatsourceid: "CASE WHEN u(97, 200) = 0 THEN u(100, 100)::VARCHAR ELSE '' END",
	utmsource: `CASE WHEN u(101, 20) = 0 THEN ${pick(list('yandex', 'google', 'vk', 'email'), 'u(102, 4)')} ELSE '' END`,
	utmmedium: "CASE WHEN u(101, 20) = 0 THEN 'cpc' ELSE '' END",
	utmcampaign: "CASE WHEN u(101, 20) = 0 THEN 'c' || u(103, 300)::VARCHAR ELSE '' END",
	utmcontent: "CASE WHEN u(101, 20) = 0 AND u(104, 2) = 0 THEN 'ad' || u(105, 50)::VARCHAR ELSE '' END",
	utmterm: "CASE WHEN u(101, 20) = 0 AND u(106, 3) = 0 THEN phrase ELSE '' END",
	fromtag: "CASE WHEN u(107, 100) = 0 THEN 'tag' || u(108, 20)::VARCHAR ELSE '' END",
	hasgclid: 'u(109, 100) = 0',
	refererhash: "CASE WHEN referer = '' THEN 3594120000172545465 ELSE (hash(referer) >> 1)::BIGINT END",
	urlhash: "CASE WHEN special THEN 2868770270353813622 ELSE (hash(url) >> 1)::BIGINT END",
	clid: 'CASE WHEN u(110, 100) = 0 THEN u(111, 1000) ELSE 0 END',
};

const WORDS1 = list('купить', 'cheap', 'how to', 'weather', 'download', 'watch', 'news',
	'best', 'free', 'online', 'buy', 'review', 'price', 'photo', 'video', 'map', 'recipe',
	'music', 'game', 'train', 'flight', 'hotel', 'car', 'phone', 'laptop', 'tv', 'book',
	'film', 'series', 'song', 'lyrics', 'translate', 'bank', 'credit', 'job', 'school',
	'football', 'hockey', 'tickets', 'taxi');
const WORDS2 = list('moscow', 'kiev', 'minsk', 'iphone', 'samsung', 'ikea', 'sale', '2013',
	'torrent', 'hd', 'online', 'free', 'new', 'old', 'russia', 'ukraine', 'map', 'time',
	'today', 'tomorrow', 'kids', 'women', 'men', 'sport', 'cheap', 'used', 'rent', 'home',
	'garden', 'work', 'city', 'park', 'metro', 'bus', 'airport', 'hotel', 'beach', 'sea',
	'river', 'lake');

// The per-row values the columns share, then the columns in create.sql's order.
function selectSql(rows, seed) {
	const cols = hitsColumns();
	const sel = cols.map(([name, type]) => {
		const e = EXPR[name];
		if (e === undefined)
			throw new Error(`gen.mjs: no expression for column ${name}`);
		return `(${e})::${DUCK_TYPE[type]} AS ${name}`;
	});
	return `
WITH base AS (
  SELECT i, ${seed}::UBIGINT AS seed,
         (hash(i, 200, ${seed}) % ${Math.max(1, Math.floor(rows / 5))})::BIGINT AS ui
  FROM range(${rows}) r(i)
), b2 AS (
  SELECT *,
    TIMESTAMP '2013-07-01 00:00:00' + to_seconds((hash(i, 201, seed) % (31 * 86400))::BIGINT) AS et,
    hash(i, 202, seed) % 100 < 15 AS searching,
    hash(ui, 203, seed) % 10 = 0 AS mobile,
    hash(i, 204, seed) % 4000 = 0 AS special,
    ${list(-1, 0, 3, 3, 3, 4, 5, 6, 2, 1)}[1 + (hash(ui, 205, seed) % 10)::INTEGER] AS tz,
    least(hash(i, 206, seed) % 60000, hash(i, 207, seed) % 60000)::BIGINT AS pid
  FROM base
), b3 AS (
  SELECT *,
    CASE WHEN special THEN 'http://kinopoisk.ru/film/'
         WHEN hash(i, 208, seed) % 100 < 2 THEN ''
         ELSE 'http://' ||
           CASE WHEN hash(i, 209, seed) % 100 < 3
                THEN ${list('www.google.ru', 'google.com', 'images.google.ru', 'maps.google.com',
		'news.google.ru', 'mail.google.com')}[1 + (hash(i, 210, seed) % 6)::INTEGER]
                ELSE 'site' || least(hash(i, 211, seed) % 3000, hash(i, 212, seed) % 3000)::VARCHAR || '.ru'
           END || '/' ||
           ${list('news', 'catalog', 'item', 'search', 'video', 'forum', 'blog', 'page')}[1 + (hash(i, 213, seed) % 8)::INTEGER]
           || '/' || least(hash(i, 214, seed) % 50000, hash(i, 215, seed) % 50000)::VARCHAR || '.html'
    END AS url,
    CASE WHEN hash(i, 216, seed) % 10 < 4 THEN ''
         ELSE CASE WHEN hash(i, 217, seed) % 2 = 0 THEN 'https://' ELSE 'http://' END ||
           CASE WHEN hash(i, 218, seed) % 3 = 0 THEN 'www.' ELSE '' END ||
           CASE hash(i, 219, seed) % 10 WHEN 0 THEN 'yandex.ru' WHEN 1 THEN 'yandex.ru'
                WHEN 2 THEN 'google.ru' WHEN 3 THEN 'go.mail.ru'
                ELSE 'site' || least(hash(i, 220, seed) % 2000, hash(i, 221, seed) % 2000)::VARCHAR || '.ru'
           END || '/' || (hash(i, 222, seed) % 1000)::VARCHAR || '/'
    END AS referer,
    CASE WHEN searching
         THEN ${WORDS1}[1 + (pid % 40)::INTEGER] || ' ' || ${WORDS2}[1 + ((pid // 40) % 40)::INTEGER] ||
              CASE WHEN pid >= 1600 THEN ' ' || (pid // 1600)::VARCHAR ELSE '' END
         ELSE '' END AS phrase
  FROM b2
), b4 AS (
  SELECT *,
    ${list(1024, 1280, 1366, 1440, 1600, 1920, 2560, 800, 0, 1536)}[1 + (hash(ui, 23, seed) % 10)::INTEGER] AS resolutionwidth,
    ${list(768, 1024, 768, 900, 900, 1080, 1440, 600, 0, 864)}[1 + (hash(ui, 23, seed) % 10)::INTEGER] AS resolutionheight
  FROM b3
)
SELECT ${sel.join(',\n  ')}
FROM b4
ORDER BY counterid, eventdate, userid, eventtime, watchid`;
}

const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;

export async function generate(duck, dir, rows, seed, log = () => {}) {
	const sql = selectSql(rows, seed);
	const ver = (await duck.runAndReadAll('SELECT version()')).getRows()[0][0];
	const stamp = crypto.createHash('sha256').update(JSON.stringify({ sql, ver })).digest('hex');
	const files = { parquet: path.join(dir, 'hits.parquet'), csv: path.join(dir, 'hits.csv'), rows };
	const stampFile = path.join(dir, 'stamp.json');
	if (fs.existsSync(stampFile) && JSON.parse(fs.readFileSync(stampFile, 'utf8')).stamp === stamp &&
		fs.existsSync(files.parquet) && fs.existsSync(files.csv)) {
		log(`reusing ${dir}`);
		return files;
	}
	fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
	fs.chmodSync(dir, 0o755);
	const t0 = performance.now();
	// u(k, m) and p(k, m): see EXPR
	const body = sql
		.replace(/\bu\((\d+), (\d+)\)/g, '(hash(i, $1, seed) % $2)::BIGINT')
		.replace(/\bp\((\d+), (\d+)\)/g, '(hash(ui, $1, seed) % $2)::BIGINT');
	await duck.run(`CREATE OR REPLACE TABLE hits_gen AS ${body}`);
	await duck.run(`COPY hits_gen TO ${lit(files.parquet)} (FORMAT parquet, COMPRESSION snappy)`);
	await duck.run(`COPY hits_gen TO ${lit(files.csv)} (FORMAT csv, HEADER false)`);
	await duck.run('DROP TABLE hits_gen');
	fs.chmodSync(files.parquet, 0o644);
	fs.chmodSync(files.csv, 0o644);
	fs.writeFileSync(stampFile, JSON.stringify({ stamp, rows, seed, duckdb: ver }));
	log(`generated ${rows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s: ` +
		`${(fs.statSync(files.parquet).size / 1e6).toFixed(0)} MB Parquet, ` +
		`${(fs.statSync(files.csv).size / 1e6).toFixed(0)} MB CSV`);
	return files;
}
