import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export type JsonLine =
  | { lineNumber: number; value: unknown }
  | { lineNumber: number; parseError: string };

/**
 * Reads a JSON-lines file as a stream, in constant memory: one parsed value per non-blank line,
 * or the parse error of a line that is not JSON (the caller decides whether that error, which
 * quotes the line, may be shown). CRLF endings and a leading byte-order mark are accepted.
 * A file that cannot be opened fails with `openError(message)` before anything is read.
 */
export async function* readJsonLines(file: string, openError: (message: string) => Error): AsyncGenerator<JsonLine> {
  const input = createReadStream(file, { encoding: 'utf8' });
  await new Promise<void>((resolve, reject) => input.once('open', () => resolve()).once('error', reject)).catch((error: Error) => {
    throw openError(`${file}: ${error.message}`);
  });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  for await (const rawLine of lines) {
    lineNumber++;
    const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
    if (line.trim() === '') continue;
    try {
      yield { lineNumber, value: JSON.parse(line) as unknown };
    } catch (error) {
      yield { lineNumber, parseError: (error as Error).message };
    }
  }
}
