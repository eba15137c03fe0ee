/**
 * `npm run import-ads -- --pixel <id> --file <path> [--table <name> --bucket <name>]`: imports
 * ads, their hourly metrics and exchange rates from a `.json` document or an `.ndjson` stream into
 * the analytics store, locally or deployed. Valid records are stored even when others are
 * rejected; each rejection goes to stderr and the summary to stdout. Exit code 0: all stored; 1:
 * something was rejected or the import failed; 2: usage error.
 */
import { runImportCli } from '../lib/local/import-cli';
import { formatRejection } from '../shared/import/rejections';
import { importFormatOf } from '../shared/ads/import-file-format';

await runImportCli({
  usage: `Usage:
  npm run import-ads -- --pixel <id> --file <path> [--table <name> --bucket <name>]
Files: .json  one document { "fxRates": [...], "ads": [...] }
       .ndjson one ad object a line; a line { "fxRates": [...] } may appear anywhere`,
  unsupportedFile: (file) => (importFormatOf(file) ? undefined : 'unsupported file type; use .json or .ndjson'),
  analyticsStore: true,
  // Imported after the connection is set up: the repositories build their client from the environment.
  load: async () => {
    const { importAdsFile, formatSummary, ImportFileError } = await import('../shared/ads/import-ads');
    return {
      importFile: (pixelId, file, onRejection) => importAdsFile(pixelId, file, { onRejection }),
      formatRejection,
      formatSummary,
      FileError: ImportFileError,
    };
  },
});
