/**
 * `npm run import-orders -- --pixel <id> --file <ndjson> [--table <name>]`: backfills a merchant's
 * order history from an export, one order a line, locally or into a deployed table. Valid lines
 * are stored even when others are rejected; each rejection goes to stderr and the summary to
 * stdout. Exit code 0: all stored; 1: something was rejected or the import failed; 2: usage error.
 */
import { runImportCli } from '../lib/local/import-cli';
import { formatRejection } from '../shared/import/rejections';
import { isOrderImportFile } from '../shared/orders/order-import-file';

await runImportCli({
  usage: `Usage:
  npm run import-orders -- --pixel <id> --file <path.ndjson> [--table <name>]
File: one order a line, e.g.
  {"orderId":"1001","orderDate":"2026-03-01T10:00:00Z","value":99.9,"currency":"USD","sourceName":"web",
   "tags":["vip"],"paymentGateway":"stripe","financialStatus":"paid","refunds":[],"customer":{"emails":["jane@example.com"]}}`,
  unsupportedFile: (file) => (isOrderImportFile(file) ? undefined : 'unsupported file type; use .ndjson (or .jsonl), one order a line'),
  // Imported after the connection is set up: the repositories build their client from the environment.
  load: async () => {
    const { importOrdersFile, formatOrderImportSummary, OrderImportFileError } = await import('../shared/orders/import-orders');
    return {
      importFile: (pixelId, file, onRejection, progress) => importOrdersFile(pixelId, file, { onRejection, progress }),
      formatRejection,
      formatSummary: formatOrderImportSummary,
      FileError: OrderImportFileError,
    };
  },
});
