/**
 * BENCH_STORE_OPS_FILE=<file>: the ingestion server counts its store calls by command and by the
 * project function that made them (the first two `shared/` frames of the call's async stack, past
 * the batching helpers), the items they name (a batch call's requests, a query's items returned)
 * and the bytes of their requests. The server and its projection thread each import this module
 * and count their own calls; each writes its counts when it exits, to <file>.<case> (accept,
 * project, core) and <file>.<case>.drain. Capturing a stack per call costs CPU: compare CPU only
 * between runs without it.
 */
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { bulkDocumentClient, documentClient } from '../shared/store/dynamo-client';

const file = process.env.BENCH_STORE_OPS_FILE;
if (file) {
  const counts = countStoreOps();
  const benchCase = process.env.BENCH_DRAIN === '0' ? 'accept' : process.env.BENCH_READ_MODELS === '0' ? 'core' : 'project';
  process.on('exit', () => writeFileSync(`${file}.${benchCase}${isMainThread ? '' : '.drain'}`, `${JSON.stringify(counts, null, 1)}\n`));
}

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
