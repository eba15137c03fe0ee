import { checkRecord } from '../import/checked-record';
import { readJsonLines } from '../import/json-lines';
import type { ImportRejection } from '../import/rejections';
import { COST_LIMITS, skuCostSchema, type SkuCost } from '../schemas/cost-settings';
import { writeSkuCosts } from '../analytics/store/sku-costs';

/**
 * The import behind `npm run import-costs`: one SKU cost a line. All or nothing: every line is
 * checked first, and a file with any rejected line stores nothing, so a half-corrected price list
 * never mixes with the one before it. A line for a SKU and start date already stored replaces it.
 */
export interface CostImportSummary {
  lines: number;
  skus: number;
  rejected: number;
}

/** The file as a whole cannot be read; nothing was stored. */
export class CostImportFileError extends Error {}

export async function importCostsFile(pixelId: string, file: string, options: { onRejection?: (rejection: ImportRejection) => void } = {}): Promise<CostImportSummary> {
  const lines: SkuCost[] = [];
  const summary: CostImportSummary = { lines: 0, skus: 0, rejected: 0 };
  const reject = (rejection: ImportRejection) => {
    summary.rejected++;
    options.onRejection?.(rejection);
  };
  for await (const line of readJsonLines(file, (message) => new CostImportFileError(message))) {
    const location = `line ${line.lineNumber}`;
    if ('parseError' in line) {
      reject({ location, problems: [{ path: '', message: 'Not valid JSON' }] });
      continue;
    }
    const checked = checkRecord(line.value, skuCostSchema);
    if ('problems' in checked) {
      reject({ location, problems: checked.problems });
      continue;
    }
    if (lines.length >= COST_LIMITS.skuCostsPerFile) throw new CostImportFileError(`${file}: more than ${COST_LIMITS.skuCostsPerFile.toLocaleString('en-US')} lines; split the file`);
    lines.push(checked.data);
  }
  if (summary.rejected > 0) return summary;
  await writeSkuCosts(pixelId, lines);
  summary.lines = lines.length;
  summary.skus = new Set(lines.map((line) => line.sku)).size;
  return summary;
}

export function formatCostImportSummary(pixelId: string, summary: CostImportSummary): string {
  if (summary.rejected > 0) return `Imported nothing into pixel ${pixelId}: ${summary.rejected.toLocaleString('en-US')} line${summary.rejected === 1 ? '' : 's'} rejected; fix them and run the import again`;
  return `Imported ${summary.lines.toLocaleString('en-US')} SKU cost${summary.lines === 1 ? '' : 's'} (${summary.skus.toLocaleString('en-US')} SKU${summary.skus === 1 ? '' : 's'}) into pixel ${pixelId}`;
}
