/**
 * `npm run import-costs -- --pixel <id> --file <ndjson> [--table <name> --bucket <name>]`: per-SKU unit costs with
 * effective dates, one a line. All or nothing: a file with any rejected line stores nothing (each
 * rejection goes to stderr). Exit code 0: all stored; 1: rejected or failed; 2: usage error.
 */
import { extname } from 'node:path';
import { runImportCli } from '../lib/local/import-cli';
import { formatRejection } from '../shared/import/rejections';

await runImportCli({
  usage: `Usage:
  npm run import-costs -- --pixel <id> --file <path.ndjson> [--table <name> --bucket <name>]
File: one SKU cost a line (effectiveTo optional; both dates inclusive, UTC), e.g.
  {"sku":"TEE-RED-M","cost":7.5,"currency":"USD","effectiveFrom":"2026-01-01","effectiveTo":"2026-06-30"}`,
  unsupportedFile: (file) => (['.ndjson', '.jsonl'].includes(extname(file).toLowerCase()) ? undefined : 'unsupported file type; use .ndjson (or .jsonl), one SKU cost a line'),
  analyticsStore: true,
  load: async () => {
    const { importCostsFile, formatCostImportSummary, CostImportFileError } = await import('../shared/costs/import-costs');
    return {
      importFile: (pixelId, file, onRejection) => importCostsFile(pixelId, file, { onRejection }),
      formatRejection,
      formatSummary: formatCostImportSummary,
      FileError: CostImportFileError,
    };
  },
});
