import { DuckDBInstance } from '@duckdb/node-api';
const dir = '/tmp/p13exp/data';
const dir2 = '/tmp/p13exp/data2';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
if (!process.argv.includes('--skip')) {
  const s = performance.now();
  await c.run(`COPY (SELECT (hash(platform, ad_id) >> 1)::BIGINT AS ad_key, * FROM read_parquet('${dir}/*/*.parquet', hive_partitioning=true) ORDER BY date, platform, ad_id, hour) TO '${dir2}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), OVERWRITE_OR_IGNORE)`);
  console.log('rewrite', performance.now() - s);
}
const files = (await c.runAndReadAll(`SELECT file FROM glob('${dir2}/*/*.parquet')`)).getRowObjectsJS().map((r) => r.file as string);
const ads = Array.from({ length: 500 }, (_, i) => ({ p: ['meta', 'google', 'tiktok'][(i * 19) % 3], a: '1202130000' + String((i * 19) % 10000).padStart(5, '0') }));
await c.run(`CREATE OR REPLACE TEMP TABLE page AS SELECT *, (hash(platform, ad_id) >> 1)::BIGINT AS ad_key FROM (VALUES ${ads.map((ad, i) => `('${ad.p}','${ad.a}',${i})`).join(',')}) v(platform, ad_id, ord)`);
const keys = (await c.runAndReadAll('SELECT ad_key FROM page')).getRowObjectsJS().map((r) => String(r.ad_key));
const list = files.map((f) => `'${f}'`).join(',');
const time = async (label: string, sql: string) => {
  for (let run = 0; run < 3; run++) {
    const s = performance.now();
    const r = await c.runAndReadAll(sql);
    console.log(label, run, (performance.now() - s).toFixed(1), r.currentRowCount);
  }
};
await time('count', `SELECT count(*) FROM read_parquet([${list}])`);
await time('semikey', `SELECT count(*) FROM read_parquet([${list}]) h SEMI JOIN page USING (ad_key)`);
await time('inkey', `SELECT count(*) FROM read_parquet([${list}]) h WHERE ad_key IN (${keys.join(',')})`);
await time('group', `SELECT p.ord, (h.hour + INTERVAL (-5) HOUR)::DATE, h.hour::DATE, sum(spend), sum(impressions), sum(clicks), sum(conversions), sum(conversion_value) FROM read_parquet([${list}]) h JOIN page p USING (ad_key) GROUP BY ALL`);
await time('groupdedup', `SELECT p.ord, (h.hour + INTERVAL (-5) HOUR)::DATE, h.hour::DATE, sum(spend), sum(impressions), sum(clicks), sum(conversions), sum(conversion_value) FROM (SELECT * FROM read_parquet([${list}]) WHERE ad_key IN (SELECT ad_key FROM page) QUALIFY row_number() OVER (PARTITION BY ad_key, platform, ad_id, hour ORDER BY import_id DESC) = 1) h JOIN page p USING (ad_key, platform, ad_id) GROUP BY ALL`);
await time('groupargmax', `SELECT p.ord, (h.hour + INTERVAL (-5) HOUR)::DATE, h.hour::DATE, sum(s), sum(i) FROM (SELECT ad_key, platform, ad_id, hour, arg_max(spend, import_id) s, arg_max(impressions, import_id) i FROM read_parquet([${list}]) WHERE ad_key IN (SELECT ad_key FROM page) GROUP BY ALL) h JOIN page p USING (ad_key, platform, ad_id) GROUP BY ALL`);
