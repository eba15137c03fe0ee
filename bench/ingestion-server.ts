/**
 * The local server's program for the ingestion benchmark, with the store in a process of its own
 * (as DynamoDB is in AWS): the same front door, handlers and drain as `npm start`, pointed at the
 * DynamoDB endpoint in BENCH_DYNAMODB_ENDPOINT. With BENCH_DRAIN=0 nothing is projected, so the
 * accept path is measured alone (in AWS the consumer runs in Lambdas of its own).
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
const { startDrain } = await import('../shared/pipeline/drain');
// BENCH_READ_MODELS=0 projects the core stores only (events, dedup index, orders), to tell their cost from the read models'.
// BENCH_PROJECTORS=<name,...> keeps only those read models on, to measure one alone.
const { readModelProjectors } = await import('../shared/pipeline/read-models');
const only = process.env.BENCH_PROJECTORS?.split(',');
const projectors = process.env.BENCH_READ_MODELS === '0' ? [] : only ? readModelProjectors.filter((projector) => only.includes(projector.name)) : readModelProjectors;
const drain = process.env.BENCH_DRAIN === '0' ? undefined : startDrain({ projectors });
const api = await startLocalApi({ host: config.host, port: config.port, routes: routeTable, handlers });
process.stdout.write(`listening on ${api.url}\n`);
process.stdin.on('end', () => {
  void (async () => {
    await api.close();
    await drain?.close();
    process.exit(0);
  })();
}).resume();
