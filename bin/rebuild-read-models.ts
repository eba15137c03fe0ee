/**
 * `npm run rebuild-read-models -- --pixel <id> [--projector <name>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--table <name>]`:
 * replays a pixel's stored events and orders through the read-model projectors (all, or one),
 * locally or against a deployed table. Safe to run at any time, as often as needed: projectors are
 * idempotent. Exit code 0: replayed; 1: the store failed (running it again is safe); 2: usage error.
 */
import { parseArgs } from 'node:util';
import { isWellFormedPixelId } from '../shared/auth/api-key-secret';
import { connectStore } from '../lib/local/store-connection';

const usage = `Usage:
  npm run rebuild-read-models -- --pixel <id> [--projector <name>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--table <name>]
Replays the pixel's stored events (UTC days from --from to --to, inclusive; default: the whole
event retention up to today) and its orders placed in that range through the read models. Orders
an earlier version kept as DynamoDB items are moved into the analytics store first: to upgrade,
give --from the pixel's first order date.`;
const fail = (message: string, code = 2): never => {
  console.error(message ? `${message}\n\n${usage}` : usage);
  process.exit(code);
};

let values: { pixel?: string; projector?: string; from?: string; to?: string; table?: string; help?: boolean } = {};
try {
  ({ values } = parseArgs({
    options: {
      pixel: { type: 'string' },
      projector: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      table: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) fail('', 0);
if (!values.pixel) fail('--pixel is required');
const pixelId = values.pixel!;
if (!isWellFormedPixelId(pixelId)) fail(`'${pixelId}' is not a valid pixel id`);
const day = (text: string | undefined, name: string): Date | undefined => {
  if (text === undefined) return undefined;
  const date = new Date(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(date.getTime())) fail(`--${name} must be a date YYYY-MM-DD`);
  return date;
};

const store = await connectStore({ table: values.table });
try {
  // Loaded once the store is connected: the repositories build their client from the environment.
  const { readModelProjectors } = await import('../shared/pipeline/read-models');
  const { rebuildReadModels } = await import('../shared/pipeline/rebuild-read-models');
  const { retention } = await import('../shared/store/retention');
  const projectors = values.projector ? readModelProjectors.filter((projector) => projector.name === values.projector) : readModelProjectors;
  if (values.projector && projectors.length === 0) {
    fail(`No read model is named '${values.projector}'; registered: ${readModelProjectors.map((projector) => projector.name).join(', ') || 'none'}`);
  }
  const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const to = new Date((day(values.to, 'to') ?? today).getTime() + 86_400_000);
  const from = day(values.from, 'from') ?? new Date(today.getTime() - Math.ceil(retention.eventDays()) * 86_400_000);
  if (from >= to) fail('--from must not be after --to');
  const summary = await rebuildReadModels(pixelId, { from, to }, projectors);
  console.log(
    `Replayed ${summary.events.toLocaleString('en-US')} events (${summary.entries.toLocaleString('en-US')} log entries) and ` +
      `${summary.orders.toLocaleString('en-US')} orders of pixel ${pixelId} through ${summary.projectors.join(', ') || 'no read model (none registered)'}` +
      (summary.movedOrders > 0 ? `, after moving ${summary.movedOrders.toLocaleString('en-US')} orders of an earlier version into the analytics store` : ''),
  );
} catch (error) {
  console.error(`Rebuild stopped (${store.description}): ${(error as Error).message}\nRunning it again is safe.`);
  process.exitCode = 1;
} finally {
  await store.close();
}
