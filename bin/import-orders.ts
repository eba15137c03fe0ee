/**
 * `npm run import-orders -- --pixel <id> --file <ndjson> [--table <name>]`: backfills a merchant's
 * order history from an export, one order a line, locally or into a deployed table. Valid lines
 * are stored even when others are rejected; each rejection goes to stderr and the summary to
 * stdout. Exit code 0: all stored; 1: something was rejected or the import failed; 2: usage error.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connectStore } from '../lib/local/store-connection';
import { isWellFormedPixelId } from '../shared/auth/api-key-secret';
import { isOrderImportFile } from '../shared/orders/order-import-file';

const USAGE = `Usage:
  npm run import-orders -- --pixel <id> --file <path.ndjson> [--table <name>]
File: one order a line, e.g.
  {"orderId":"1001","orderDate":"2026-03-01T10:00:00Z","value":99.9,"currency":"USD","sourceName":"web",
   "tags":["vip"],"paymentGateway":"stripe","financialStatus":"paid","refunds":[],"customer":{"emails":["jane@example.com"]}}`;

function fail(message: string, code = 2): never {
  console.error(message ? `${message}\n\n${USAGE}` : USAGE);
  process.exit(code);
}

let values: { pixel?: string; file?: string; table?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      pixel: { type: 'string' },
      file: { type: 'string' },
      table: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) fail('', 0);
const { pixel, file } = values;
if (!pixel) fail('--pixel is required');
if (!isWellFormedPixelId(pixel)) fail(`'${pixel}' is not a valid pixel id (letters, digits, _ . : -, at most 128 characters)`);
if (!file) fail('--file is required');
if (!isOrderImportFile(file)) fail(`${file}: unsupported file type; use .ndjson (or .jsonl), one order a line`);
if (!existsSync(file)) fail(`${file}: no such file`);

const store = await connectStore({ table: values.table });
// Imported after the connection is set up: the repositories build their client from the environment.
const { importOrdersFile, formatOrderImportSummary, formatRejection, OrderImportFileError } = await import('../shared/orders/import-orders');

try {
  const summary = await importOrdersFile(pixel, file, { onRejection: (rejection) => console.error(formatRejection(rejection)) });
  console.log(formatOrderImportSummary(pixel, summary));
  process.exitCode = summary.rejected === 0 ? 0 : 1;
} catch (error) {
  if (error instanceof OrderImportFileError) {
    console.error(`Nothing imported: ${error.message}`);
  } else {
    // Every line is an idempotent merge, so running the same import again completes it.
    console.error(`Import stopped (${store.description}): ${(error as Error).message}\nPart of the file may be stored; running the same import again is safe.`);
  }
  process.exitCode = 1;
} finally {
  await store.close();
}
