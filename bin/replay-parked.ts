/**
 * `npm run replay-parked -- [list] [--pixel <id>] [--pending] [--dry-run] [--json] [--table <name>]`:
 * shows the pending items the pipeline consumer parked because they kept failing (what failed,
 * why, how often, when), and puts them back in the pending index with their attempts reset, once
 * the cause is fixed, locally or against a deployed table. The consumer then projects them like
 * any pending item (the local drain within a second, deployed the stream at once): exactly once in
 * effect, as every projection step is idempotent. One that still fails is parked again after its
 * attempts. With `--pending` it works on the pending index instead: it has the stream deliver
 * those items again (what a batch Lambda gave up on left behind, see the on-failure queue).
 * Exit code 0: done; 1: the store failed (running it again is safe); 2: usage error.
 */
import { parseArgs } from 'node:util';
import { isWellFormedPixelId } from '../shared/auth/api-key-secret';
import { connectStore } from '../lib/local/store-connection';

const usage = `Usage:
  npm run replay-parked -- list [--pixel <id>] [--pending] [--json] [--table <name>]
  npm run replay-parked -- [--pixel <id>] [--pending] [--dry-run] [--table <name>]
list shows what is parked and why; without it, the parked items (of the pixel, or all) are put
back in the pending index for the consumer to project again. --dry-run lists what would be.
--pending: the pending index instead; a replay has the stream deliver its items again.`;
const fail = (message: string, code = 2): never => {
  console.error(message ? `${message}\n\n${usage}` : usage);
  process.exit(code);
};

let parsed: { values: { pixel?: string; table?: string; pending?: boolean; 'dry-run'?: boolean; json?: boolean; help?: boolean }; positionals: string[] } = {
  values: {},
  positionals: [],
};
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      pixel: { type: 'string' },
      table: { type: 'string' },
      pending: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  fail((error as Error).message);
}
const { values, positionals } = parsed;
if (values.help) fail('', 0);
const [command = 'replay', ...extra] = positionals;
if (!['list', 'replay'].includes(command) || extra.length > 0) fail(`Unknown command '${positionals.join(' ')}'`);
if (values.pixel !== undefined && !isWellFormedPixelId(values.pixel)) fail(`'${values.pixel}' is not a valid pixel id`);
const listing = command === 'list' || values['dry-run'] === true;

const store = await connectStore({ table: values.table });
try {
  // Loaded once the store is connected: the repositories build their client from the environment.
  const { listIndexed, redeliverPending, replayParked } = await import('../shared/store/pending-failures');
  const index = values.pending ? 'pending' : 'parked';
  const items = await listIndexed(index, values.pixel);
  const pixels = new Set(items.map((item) => item.pixelId)).size;
  const counted = `${items.length.toLocaleString('en-US')} ${index} item(s) of ${pixels} pixel(s)${values.pixel ? ` (pixel ${values.pixel})` : ''} in the ${store.description}`;
  if (listing && values.json) {
    console.log(JSON.stringify(items.map(({ key: _key, sortKey: _sortKey, ...item }) => item)));
  } else if (listing) {
    for (const item of items) {
      const failures = item.attempts > 0 ? `${item.attempts} attempts, failed first ${item.firstFailedAt}, last ${item.lastFailedAt}  ${item.errorName}: ${item.errorMessage}` : 'not failed yet';
      console.log(`${item.pixelId}  ${item.kind} ${item.id}  ${failures}`);
    }
    console.log(command === 'list' ? counted : `Would replay ${counted}`);
  } else {
    let replayed = 0;
    for (const item of items) if (await (values.pending ? redeliverPending(item) : replayParked(item))) replayed++;
    const outcome = values.pending ? 'delivered to the consumer again' : 'pending again, and the consumer projects them';
    console.log(`Replayed ${replayed.toLocaleString('en-US')} of ${counted}: ${outcome}`);
  }
} catch (error) {
  console.error(`replay-parked stopped (${store.description}): ${(error as Error).message}\nRunning it again is safe.`);
  process.exitCode = 1;
} finally {
  await store.close();
}
