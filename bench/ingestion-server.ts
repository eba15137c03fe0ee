/**
 * The local server's program for the ingestion benchmark, with the store in a process of its own
 * (as DynamoDB is in AWS): the same front door, handlers and drain as `npm start`, pointed at the
 * DynamoDB endpoint in BENCH_DYNAMODB_ENDPOINT. With BENCH_DRAIN=0 nothing is projected, so the
 * accept path is measured alone (in AWS the consumer runs in Lambdas of its own).
 * The drain runs on a thread of its own, as in `npm start`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTable } from '../lib/local/dynamodb';
import { startLocalApi, type LambdaHandler } from '../lib/local/local-api';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { routeTable } from '../lib/routes';

const endpoint = process.env.BENCH_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('BENCH_DYNAMODB_ENDPOINT is required');
const config = localConfig();
await ensureTable(endpoint, config.tableName);
useLocalServices(config, { dynamodb: endpoint });
const handlers = new Map<string, LambdaHandler>();
for (const route of routeTable) {
  handlers.set(route.id, ((await import(pathToFileURL(resolve(route.handler)).href)) as { handler: LambdaHandler }).handler);
}
// BENCH_STORE_OPS_FILE counts this thread's store calls, and the projection thread's own.
const storeOps = process.env.BENCH_STORE_OPS_FILE ? ['bench/store-ops.ts'] : [];
if (storeOps.length > 0) await import('./store-ops');
const { startDrainThread } = await import('../lib/local/drain-thread');
// BENCH_READ_MODELS=0 projects the core stores only (events, dedup index, orders), to tell their cost from the read models'.
// BENCH_PROJECTORS=<name,…> runs only the named read models (`none`: none), to see one read model's cost alone.
const only = process.env.BENCH_PROJECTORS?.split(',').filter((name) => name.length > 0);
const projectorNames = process.env.BENCH_READ_MODELS === '0' ? [] : only;
const drain = process.env.BENCH_DRAIN === '0' ? undefined : await startDrainThread({ ...(projectorNames ? { projectorNames } : {}), preload: storeOps });
const api = await startLocalApi({ host: config.host, port: config.port, routes: routeTable, handlers });
process.stdout.write(`listening on ${api.url}\n`);
process.stdin.on('end', () => {
  void (async () => {
    await api.close();
    await drain?.close();
    process.exit(0);
  })();
}).resume();
