import { extname } from 'node:path';

/**
 * How an import file is read, from its extension: `.json` is one document, `.ndjson` (or `.jsonl`)
 * one record a line. Kept apart from the importer so the CLI can check usage before it connects
 * to a store (the importer's repositories build their client from the environment at load).
 */
export type ImportFileFormat = 'json' | 'ndjson';

const FORMATS: Readonly<Record<string, ImportFileFormat>> = { '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson' };

export function importFormatOf(file: string): ImportFileFormat | undefined {
  return FORMATS[extname(file).toLowerCase()];
}
