import { startBenchStore } from '../bench/bench-store.ts';
import { ensureTable } from '../lib/local/dynamodb.ts';
const store = await startBenchStore('child-process');
Object.assign(process.env, { AWS_ENDPOINT_URL_DYNAMODB: store.endpoint, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1', TABLE_NAME: 'bench-t', POWERTOOLS_LOG_LEVEL: 'ERROR' });
await ensureTable(store.endpoint, 'bench-t');
const { documentClient } = await import('../shared/store/dynamo-client.ts');
const { appendLogEntry } = await import('../shared/store/log-repository.ts');
const { drainAll } = await import('../shared/pipeline/drain.ts');
const { newEventId } = await import('../shared/tracking/event-id.ts');
const times = new Map<string, { n: number; ms: number }>();
const send = documentClient.send.bind(documentClient);
(documentClient as any).send = async (c: any) => { const t = performance.now(); try { return await send(c); } finally { const k = c.constructor.name; const e = times.get(k) ?? { n: 0, ms: 0 }; e.n++; e.ms += performance.now() - t; times.set(k, e); } };
const N = Number(process.argv[2] ?? 50);
for (let b = 0; b < N; b++) {
  const at = new Date();
  await appendLogEntry({ pixelId: 'px', entryId: newEventId(at), acceptedAt: at.toISOString(), events: Array.from({ length: 100 }, (_, i) => ({ eventId: `b${b}-${i}`, eventIdSource: 'client', name: i % 20 === 19 ? 'purchase' : 'page_view', standard: true, timestamp: at.toISOString(), receivedAt: at.toISOString(), page: { url: 'https://shop.example/p?utm_source=x' }, data: i % 20 === 19 ? { orderId: `o${b}-${i}`, value: 5, currency: 'USD' } : { value: 1 } })) as any });
}
times.clear();
const cpu = process.cpuUsage(); const t = performance.now();
await drainAll();
const dt = performance.now() - t; const c = process.cpuUsage(cpu);
console.log('events/s', Math.round(N * 100 / dt * 1000), 'wall ms', Math.round(dt), 'client cpu ms', Math.round((c.user + c.system) / 1000));
console.log([...times].map(([k, v]) => `${k}: ${v.n} calls ${Math.round(v.ms)}ms`).join('\n'));
await store.close();
