import { extname } from 'node:path';

/**
 * An order export is NDJSON: one order a line. Kept apart from the importer so the CLI can check
 * usage before it connects to a store (the importer's repositories build their client from the
 * environment at load).
 */
export function isOrderImportFile(file: string): boolean {
  return ['.ndjson', '.jsonl'].includes(extname(file).toLowerCase());
}
