/** Plain-text tables for the console report: first column left-aligned, the numbers right-aligned. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export const formatBytes = (bytes: number): string => `${bytes.toLocaleString('en-US')} B`;
/** Binary megabytes (MiB), for memory and large responses. */
export const formatMegabytes = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MB`;
export const formatMs = (ms: number): string => `${ms.toFixed(2)} ms`;
