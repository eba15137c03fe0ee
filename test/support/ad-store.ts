import { AdFactsImport } from '../../shared/analytics/store/ad-facts';
import { adImportSchema, type AdImportInput, type FxRatesEntry } from '../../shared/schemas/ad-import';

/** Stores ads (validated as the import validates them) and rates as one import, as `npm run import-ads` does. */
export async function importAds(pixelId: string, ads: readonly AdImportInput[], fxRates: readonly FxRatesEntry[] = [], now?: Date): Promise<string> {
  const writer = new AdFactsImport(pixelId, now);
  await writer.addFxRates(fxRates);
  for (const ad of ads) await writer.addAd(adImportSchema.parse(ad));
  await writer.finish();
  return writer.importId;
}
