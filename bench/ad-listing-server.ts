import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { handler } from '../functions/db-mgmt/query-ads';
import { lambdaContext } from '../lib/local/local-api';
import type { HandlerResult } from './invoke';

/**
 * The process that serves the ad-listing cases: the query-ads function's code, bundled with the
 * deployed esbuild settings together with this driver (ad-listing.ts builds it) and loaded by a
 * plain `node`, as Lambda loads a function. It runs each event the section sends it, timed here,
 * and nothing else: the section process generates and imports the dataset, builds the events and
 * decodes the answers (the client's work), so this process holds only what a function instance
 * would (the handler, the SDK, its caches) and its peak RSS is the figure a function's memory
 * setting is judged by. A fresh one serves each case, so its peak is that case's.
 *
 * Messages (IPC): `{ type: 'invoke', event, requestId, timeoutMs? }` answers `{ elapsedMs, result }`
 * or `{ error }`; `{ type: 'peak' }` answers `{ peakRssBytes }`; the first message it sends (a
 * peak) says it is loaded. The store endpoint and table come in the environment.
 */
export type ServerMessage =
  | { type: 'invoke'; event: APIGatewayProxyEventV2; requestId: string; timeoutMs?: number }
  | { type: 'peak' };

export type ServerReply = { elapsedMs: number; result: HandlerResult } | { peakRssBytes: number } | { error: string };

const reply = (message: ServerReply) => process.send?.(message);
// The kernel's high-water mark of this process over its whole life: load, warm-up and requests.
const peak = () => reply({ peakRssBytes: process.resourceUsage().maxRSS * 1024 });

process.on('message', (message: ServerMessage) => {
  if (message.type === 'peak') {
    peak();
    return;
  }
  const context = lambdaContext('queryAds', message.requestId);
  if (message.timeoutMs !== undefined) {
    const deadline = Date.now() + message.timeoutMs;
    context.getRemainingTimeInMillis = () => Math.max(0, deadline - Date.now());
  }
  const started = performance.now();
  handler(message.event, context).then(
    (result) => reply({ elapsedMs: performance.now() - started, result: (result ?? {}) as HandlerResult }),
    (error: unknown) => reply({ error: (error as Error).stack ?? String(error) }),
  );
});
// The parent closing the channel ends this process, so it never outlives a failed run.
process.on('disconnect', () => process.exit(0));
peak();
