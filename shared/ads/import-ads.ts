import { readFile } from 'node:fs/promises';
import { checkRecord } from '../import/checked-record';
import { readJsonLines } from '../import/json-lines';
import type { ImportProblem, ImportRejection } from '../import/rejections';
import { adImportSchema, fxRatesEntrySchema, type FxRatesEntry } from '../schemas/ad-import';
import { AdFactsImport } from '../analytics/store/ad-facts';
import { importFormatOf } from './import-file-format';

/**
 * The import behind `npm run import-ads`: reads a `.json` document or an `.ndjson` stream of ads
 * and exchange rates, validates every record on its own, stores the valid ones and reports the
 * others. A record is an ad, or one entry of an `fxRates` array; an invalid record is skipped
 * whole (none of its fields or hours are stored) and never stops the rest of the file. The valid
 * records are one import into the analytics store (ad-facts.ts `AdFactsImport`): staged as they
 * are read, in constant memory, and stored when the file has been read.
 */


export interface ImportSummary {
  ads: number;
  hourlyRows: number;
  /** Distinct dates that received rates. */
  fxDates: number;
  rejected: number;
}

export interface ImportOptions {
  /** Called once per rejected record, as soon as it is found (a large file is never held in memory). */
  onRejection?: (rejection: ImportRejection) => void;
}

/** The file as a whole cannot be imported (unreadable, not JSON, wrong top-level shape); nothing was stored. */
export class ImportFileError extends Error {}

export async function importAdsFile(pixelId: string, file: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const format = importFormatOf(file);
  if (!format) throw new ImportFileError(`${file}: unsupported file type; use .json or .ndjson`);
  const importer = new Importer(new AdFactsImport(pixelId), options);
  try {
    if (format === 'json') await importer.readDocument(file);
    else await importer.readLines(file);
    await importer.store.finish();
  } catch (error) {
    await importer.store.discard();
    throw error;
  }
  return importer.summary();
}

class Importer {
  private readonly fxDates = new Set<string>();
  private ads = 0;
  private hourlyRows = 0;
  private rejected = 0;

  constructor(
    readonly store: AdFactsImport,
    private readonly options: ImportOptions,
  ) {}

  async readDocument(file: string): Promise<void> {
    const document = parseDocument(await readText(file), file);
    const fxEntries = (document.fxRates ?? []).flatMap((entry, index) => this.validFxEntry(entry, `fxRates[${index}]`));
    await this.storeFx(fxEntries);
    for (const [index, ad] of (document.ads ?? []).entries()) await this.addAd(ad, `ads[${index}]`);
  }

  async readLines(file: string): Promise<void> {
    for await (const line of readJsonLines(file, (message) => new ImportFileError(message))) {
      const location = `line ${line.lineNumber}`;
      if ('parseError' in line) this.reject(location, [{ path: '', message: `Not valid JSON: ${line.parseError}` }]);
      else if (isObject(line.value) && Object.hasOwn(line.value, 'fxRates')) await this.addFxLine(line.value, location);
      else await this.addAd(line.value, location);
    }
  }

  private async addFxLine(line: Record<string, unknown>, location: string): Promise<void> {
    const unknownKeys = Object.keys(line).filter((key) => key !== 'fxRates');
    if (unknownKeys.length > 0) {
      this.reject(location, unknownKeys.map((key) => ({ path: key, message: `Unknown key '${key}': an exchange-rate line holds only fxRates` })));
      return;
    }
    if (!Array.isArray(line.fxRates)) {
      this.reject(location, [{ path: 'fxRates', message: 'Must be an array of {date, rates} entries' }]);
      return;
    }
    await this.storeFx(line.fxRates.flatMap((entry, index) => this.validFxEntry(entry, `${location}, fxRates[${index}]`)));
  }

  private validFxEntry(entry: unknown, location: string): FxRatesEntry[] {
    const checked = checkRecord(entry, fxRatesEntrySchema);
    if ('data' in checked) return [checked.data];
    this.reject(location, checked.problems);
    return [];
  }

  private async storeFx(entries: FxRatesEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.store.addFxRates(entries);
    for (const entry of entries) this.fxDates.add(entry.date);
  }

  private async addAd(value: unknown, location: string): Promise<void> {
    const checked = checkRecord(value, adImportSchema);
    if ('problems' in checked) {
      this.reject(location, checked.problems);
      return;
    }
    await this.store.addAd(checked.data);
    this.ads += 1;
    this.hourlyRows += checked.data.hourly?.length ?? 0;
  }

  private reject(location: string, problems: ImportProblem[]): void {
    this.rejected++;
    this.options.onRejection?.({ location, problems });
  }

  summary(): ImportSummary {
    return { ads: this.ads, hourlyRows: this.hourlyRows, fxDates: this.fxDates.size, rejected: this.rejected };
  }
}

async function readText(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    throw new ImportFileError(`${file}: ${(error as Error).message}`);
  }
}

/** The whole-document format: `{ fxRates?: [...], ads?: [...] }`, nothing else at the top. */
function parseDocument(text: string, file: string): { fxRates?: unknown[]; ads?: unknown[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ImportFileError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new ImportFileError(`${file}: must hold one JSON object { "fxRates": [...], "ads": [...] }`);
  const unknownKeys = Object.keys(value).filter((key) => key !== 'fxRates' && key !== 'ads');
  if (unknownKeys.length > 0) {
    throw new ImportFileError(`${file}: unknown top-level key${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.map((key) => `'${key}'`).join(', ')}; only fxRates and ads are allowed`);
  }
  for (const key of ['fxRates', 'ads'] as const) {
    if (value[key] !== undefined && !Array.isArray(value[key])) throw new ImportFileError(`${file}: ${key} must be an array`);
  }
  return value as { fxRates?: unknown[]; ads?: unknown[] };
}


/** `['hourly', '2', 'hour']` → `hourly[2].hour`. */

/** One line for stderr: `Rejected line 7: hourly[2].spend: Too small: expected number to be >=0; currency: ...`. */

/** The one-line summary the CLI prints on stdout. */
export function formatSummary(pixelId: string, summary: ImportSummary): string {
  const counted = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
  const rejected = summary.rejected === 0 ? '' : ` (${counted(summary.rejected, 'record', 'records')} rejected)`;
  return (
    `Imported ${counted(summary.ads, 'ad', 'ads')}, ${counted(summary.hourlyRows, 'hourly row', 'hourly rows')}, ` +
    `${counted(summary.fxDates, 'exchange-rate date', 'exchange-rate dates')} into pixel ${pixelId}${rejected}`
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
