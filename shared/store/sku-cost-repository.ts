import { skuCostSchema, type SkuCost } from '../schemas/cost-settings';
import { batchWrite } from './batch-write';
import { queryAll } from './query-all';

/**
 * Per-SKU unit costs of a pixel, one item per SKU and start date (see table-design.ts):
 * `PK=PIXEL#<pixelId>#SKUCOSTS`  `SK=SKU#<sku>#<effectiveFrom>`  { sku, cost, currency, effectiveFrom, effectiveTo? }
 *
 * One partition, read whole by a query that needs costs (a shop's catalogue, not its history).
 * A line for a SKU and start date already stored replaces it, so re-importing a file is a repeat.
 */
const skuCostsPk = (pixelId: string) => `PIXEL#${pixelId}#SKUCOSTS`;
const SK_PREFIX = 'SKU#';

export async function putSkuCosts(pixelId: string, lines: readonly SkuCost[]): Promise<void> {
  const latest = new Map<string, SkuCost>();
  for (const line of lines) latest.set(`${line.sku}\n${line.effectiveFrom}`, line);
  await batchWrite(
    [...latest.values()].map((line) => ({ PutRequest: { Item: { PK: skuCostsPk(pixelId), SK: `${SK_PREFIX}${line.sku}#${line.effectiveFrom}`, ...line } } })),
    { concurrency: 4 },
  );
}

export async function loadSkuCosts(pixelId: string): Promise<SkuCost[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': skuCostsPk(pixelId), ':prefix': SK_PREFIX },
  });
  return items.map(({ PK: _pk, SK: _sk, ...line }) => skuCostSchema.parse(line));
}
