import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
for (const [name, sel, comp] of [['snappy', '*', 'snappy'], ['ints', 'ad_key, platform, ad_id, hour, spend, impressions::INTEGER AS impressions, clicks::INTEGER AS clicks, conversions::INTEGER AS conversions, conversion_value, import_id, date', 'zstd']]) {
  const d = `/tmp/p13exp/d_${name}`;
  await c.run(`COPY (SELECT ${sel} FROM read_parquet('/tmp/p13exp/data2/*/*.parquet', hive_partitioning=true) ORDER BY date, ad_key, hour) TO '${d}' (FORMAT parquet, COMPRESSION ${comp}, PARTITION_BY (date), OVERWRITE_OR_IGNORE)`);
}
const ads = Array.from({ length: 500 }, (_, i) => ({ p: ['meta', 'google', 'tiktok'][(i * 19) % 3], a: '1202130000' + String((i * 19) % 10000).padStart(5, '0') }));
await c.run(`CREATE OR REPLACE TEMP TABLE page AS SELECT *, (hash(platform, ad_id) >> 1)::BIGINT AS ad_key FROM (VALUES ${ads.map((ad, i) => `('${ad.p}','${ad.a}',${i})`).join(',')}) v(platform, ad_id, ord)`);
const keys = (await c.runAndReadAll('SELECT ad_key FROM page')).getRowObjectsJS().map((r) => String(r.ad_key));
for (const name of ['data2', 'd_snappy', 'd_ints']) {
  const files = (await c.runAndReadAll(`SELECT file FROM glob('/tmp/p13exp/${name}/*/*.parquet')`)).getRowObjectsJS().map((r) => r.file as string);
  const list = files.map((f) => `'${f}'`).join(',');
  const q = `SELECT h.ad_key, h.hour::DATE, sum(spend), sum(impressions), sum(clicks), sum(conversions), sum(conversion_value) FROM read_parquet([${list}]) h WHERE h.ad_key IN (${keys.join(',')}) GROUP BY ALL`;
  for (let run = 0; run < 3; run++) {
    const s = performance.now();
    await c.runAndReadAll(q);
    console.log(name, run, (performance.now() - s).toFixed(1));
  }
}
