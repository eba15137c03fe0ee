import { DuckDBInstance } from '@duckdb/node-api';
const dir2 = '/tmp/p13exp/data2';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
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
const q = `SELECT h.ad_key, h.hour::DATE, sum(spend), sum(impressions), sum(clicks), sum(conversions), sum(conversion_value) FROM read_parquet([${list}]) h WHERE h.ad_key IN (${keys.join(',')}) GROUP BY ALL`;
await time('default', q);
await c.run('SET dynamic_or_filter_threshold = 1000');
await time('threshold', q);
const r = await c.runAndReadAll('EXPLAIN ANALYZE ' + q);
console.log(String(r.getRowObjectsJS()[0].explain_value).split('\n').filter((l) => /rows|s  |TABLE_SCAN|FILTER|JOIN|Total/.test(l)).join('\n'));
