/**
 * The local server's program for the ingestion benchmark, with the store in a process of its own
 * (as DynamoDB is in AWS): the same front door, handlers and drain as `npm start`, pointed at the
 * DynamoDB endpoint in BENCH_DYNAMODB_ENDPOINT. With BENCH_DRAIN=0 nothing is projected, so the
 * accept path is measured alone (in AWS the consumer runs in Lambdas of its own).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTable } from '../lib/local/dynamodb';
import { startLocalApi, type LambdaHandler } from '../lib/local/local-api';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { routeTable } from '../lib/routes';
import { bulkDocumentClient, documentClient } from '../shared/store/dynamo-client';

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
const { readModelProjectors } = await import('../shared/pipeline/read-models');
// BENCH_READ_MODELS=0 projects the core stores only (events, dedup index, orders), to tell their cost from the read models'.
// BENCH_PROJECTORS=<name,…> runs only the named read models (`none`: none), to see one read model's cost alone.
const only = process.env.BENCH_PROJECTORS?.split(',').filter((name) => name.length > 0);
const projectors = process.env.BENCH_READ_MODELS === '0' ? [] : only ? readModelProjectors.filter((projector) => only.includes(projector.name)) : undefined;
const storeOps = process.env.BENCH_STORE_OPS_FILE ? countStoreOps() : undefined;
const drain = process.env.BENCH_DRAIN === '0' ? undefined : startDrain(projectors ? { projectors } : {});
const api = await startLocalApi({ host: config.host, port: config.port, routes: routeTable, handlers });
process.stdout.write(`listening on ${api.url}\n`);
process.stdin.on('end', () => {
  void (async () => {
    await api.close();
    await drain?.close();
    if (storeOps) writeFileSync(`${process.env.BENCH_STORE_OPS_FILE!}.${process.env.BENCH_DRAIN === '0' ? 'accept' : process.env.BENCH_READ_MODELS === '0' ? 'core' : 'project'}`, `${JSON.stringify(storeOps, null, 1)}\n`);
    process.exit(0);
  })();
}).resume();

/**
 * BENCH_STORE_OPS_FILE=<file>: the server counts its store calls by command and by the project
 * function that made them (the first two `shared/` frames of the call's async stack, past the
 * batching helpers), the items they name (a batch call's requests, a query's items returned) and
 * the bytes of their requests, and writes them to <file>.<case> (accept, project, core) when it
 * stops. Capturing a stack per call costs the server CPU: compare CPU only between runs without it.
 */
/** A command input's size as JSON, with binary attributes at their length (a Buffer reaches a replacer already turned into `{ type, data }`) and sets as lists. */
function requestBytes(input: unknown): number {
  return JSON.stringify(input, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return '.'.repeat(value.byteLength);
    if (value instanceof Set) return [...value];
    const buffer = value as { type?: unknown; data?: unknown } | null;
    if (buffer && buffer.type === 'Buffer' && Array.isArray(buffer.data)) return '.'.repeat(buffer.data.length);
    return value;
  }).length;
}

function countStoreOps() {
  Error.stackTraceLimit = 60;
  const counts: Record<string, { calls: number; items: number; refused: number; requestBytes: number }> = {};
  for (const client of [documentClient, bulkDocumentClient]) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { RequestItems?: Record<string, unknown[] | { Keys: unknown[] }> };
        const caller = [...(new Error().stack ?? '').matchAll(/at (?:async )?(\S+) \([^)]*\/shared\/(?:[\w-]+\/)*([\w-]+\.ts)/g)]
          .map(([, fn, file]) => `${file}:${fn}`)
          .filter((frame) => !/^(batch-get|batch-write|dynamo-client|map-with-concurrency|query-all|lazy|settle-all)\.ts/.test(frame))
          .slice(0, 2)
          .join(' < ');
        const entry = (counts[`${context.commandName ?? 'unknown'} ${caller}`] ??= { calls: 0, items: 0, refused: 0, requestBytes: 0 });
        entry.requestBytes += requestBytes(args.input);
        entry.calls++;
        if (input.RequestItems) entry.items += Object.values(input.RequestItems).reduce<number>((sum, requests) => sum + (Array.isArray(requests) ? requests.length : requests.Keys.length), 0);
        try {
          const result = await next(args);
          const count = (result.output as { Count?: number }).Count;
          if (!input.RequestItems) entry.items += typeof count === 'number' ? count : 1;
          return result;
        } catch (error) {
          // A refused conditional write: the call was made, and the store did the work of it.
          entry.refused++;
          throw error;
        }
      },
      { step: 'initialize', name: 'benchStoreOps' },
    );
  }
  return counts;
}
