import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isWellFormedPixelId } from '../../shared/auth/api-key-secret';
import type { ImportRejection } from '../../shared/import/rejections';
import { connectStore } from './store-connection';

/** What an import service gives its CLI; loaded only once the store connection is set up. */
export interface ImportService<Summary extends { rejected: number }> {
  /** Imports the file; an import that counts the lines it has read into `progress.lines` gets progress lines on stderr. */
  importFile(pixelId: string, file: string, onRejection: (rejection: ImportRejection) => void, progress: ImportProgress): Promise<Summary>;
  formatRejection(rejection: ImportRejection): string;
  formatSummary(pixelId: string, summary: Summary): string;
  /** The error an import throws when the file as a whole is unusable and nothing was stored. */
  FileError: abstract new (...args: never[]) => Error;
}

export interface ImportProgress {
  lines: number;
}

/** How often a long import says how far it got. */
const PROGRESS_EVERY_MS = 5_000;

/**
 * The shared shape of the import CLIs (`import-ads`, `import-costs`, `import-orders`): `--pixel`,
 * `--file`, optional `--table` (and `--bucket`, for an import that writes the analytics store);
 * usage errors exit 2; rejections go to stderr as they are found and one summary line to stdout;
 * exit 0 when everything was stored, 1 otherwise. Running an import again is always safe, so a
 * failed run is repaired by running it again, and the CLI says so.
 */
export async function runImportCli<Summary extends { rejected: number }>(options: {
  usage: string;
  /** Why a file cannot be imported (its type), or undefined when it can. */
  unsupportedFile(file: string): string | undefined;
  load(): Promise<ImportService<Summary>>;
  /**
   * The import writes the analytics store: deployed, it needs the bucket (`--bucket`) beside the
   * table that records the store's live files (`--table`); locally, `$DATA_DIR/analytics`.
   */
  analyticsStore?: boolean;
}): Promise<void> {
  const fail = (message: string, code = 2): never => {
    console.error(message ? `${message}\n\n${options.usage}` : options.usage);
    process.exit(code);
  };

  let values: { pixel?: string; file?: string; table?: string; bucket?: string; help?: boolean } = {};
  try {
    ({ values } = parseArgs({
      options: {
        pixel: { type: 'string' },
        file: { type: 'string' },
        table: { type: 'string' },
        // Offered by the CLIs that write the analytics store; refused as unknown by the others below.
        bucket: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) fail('', 0);
  const { pixel, file } = values;
  if (!pixel) return fail('--pixel is required');
  if (!isWellFormedPixelId(pixel)) fail(`'${pixel}' is not a valid pixel id (letters, digits, _ . : -, at most 128 characters)`);
  if (values.bucket !== undefined && !options.analyticsStore) fail('Unknown option --bucket');
  if (options.analyticsStore && (values.table === undefined) !== (values.bucket === undefined)) {
    fail('--table and --bucket go together: the files go to the bucket, and the table records which are live');
  }
  if (!file) return fail('--file is required');
  const unsupported = options.unsupportedFile(file);
  if (unsupported) fail(`${file}: ${unsupported}`);
  if (!existsSync(file)) fail(`${file}: no such file`);

  const store = await connectStore({ table: values.table, bucket: values.bucket });
  const service = await options.load();
  const progress: ImportProgress = { lines: 0 };
  const started = performance.now();
  // A long import says how far it got, so a backfill of hours is not a silent terminal.
  const ticker = setInterval(() => {
    const seconds = (performance.now() - started) / 1000;
    console.error(`... ${progress.lines.toLocaleString('en-US')} lines read in ${Math.round(seconds)} s (${Math.round(progress.lines / seconds).toLocaleString('en-US')} a second)`);
  }, PROGRESS_EVERY_MS);
  ticker.unref();
  try {
    const summary = await service.importFile(pixel, file, (rejection) => console.error(service.formatRejection(rejection)), progress);
    console.log(service.formatSummary(pixel, summary));
    process.exitCode = summary.rejected === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof service.FileError) {
      console.error(`Nothing imported: ${error.message}`);
    } else {
      console.error(`Import stopped (${store.description}): ${(error as Error).message}\nPart of the file may be stored; running the same import again is safe.`);
    }
    process.exitCode = 1;
  } finally {
    clearInterval(ticker);
    await store.close();
  }
}
