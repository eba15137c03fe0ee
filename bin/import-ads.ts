/**
 * `npm run import-ads -- --pixel <id> --file <path> [--table <name>]`: upserts ads, their hourly
 * metrics and exchange rates from a `.json` document or an `.ndjson` stream, locally or into a
 * deployed table. Valid records are stored even when others are rejected; each rejection goes to
 * stderr and the summary to stdout. Exit code 0: all stored; 1: something was rejected or the
 * import failed; 2: usage error.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { connectStore } from '../lib/local/store-connection';
import { isWellFormedPixelId } from '../shared/auth/api-key-secret';
import { importFormatOf } from '../shared/ads/import-file-format';

const USAGE = `Usage:
  npm run import-ads -- --pixel <id> --file <path> [--table <name>]
Files: .json  one document { "fxRates": [...], "ads": [...] }
       .ndjson one ad object a line; a line { "fxRates": [...] } may appear anywhere`;

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
if (!importFormatOf(file)) fail(`${file}: unsupported file type; use .json or .ndjson`);
if (!existsSync(file)) fail(`${file}: no such file`);

const store = await connectStore({ table: values.table });
// Imported after the connection is set up: the repositories build their client from the environment.
const { importAdsFile, formatRejection, formatSummary, ImportFileError } = await import('../shared/ads/import-ads');

try {
  const summary = await importAdsFile(pixel, file, { onRejection: (rejection) => console.error(formatRejection(rejection)) });
  console.log(formatSummary(pixel, summary));
  process.exitCode = summary.rejected === 0 ? 0 : 1;
} catch (error) {
  if (error instanceof ImportFileError) {
    console.error(`Nothing imported: ${error.message}`);
  } else {
    // Every step is an idempotent overwrite, so running the same import again completes it.
    console.error(`Import stopped (${store.description}): ${(error as Error).message}\nPart of the file may be stored; running the same import again is safe.`);
  }
  process.exitCode = 1;
} finally {
  await store.close();
}
