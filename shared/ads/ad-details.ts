import { roundForOutput } from './ad-series';
import type { FxTable } from './fx-table';
import type { Ad } from '../schemas/ad-import';

/**
 * How each basic-details filter field of the catalog reads an ad (spec 4.2). The filter-field
 * catalog says which fields and operators are allowed; this says where their values come from.
 */
export const AD_ATTRIBUTE_FIELDS: Readonly<Record<string, (ad: Ad) => string>> = {
  'channel.resource_source': (ad) => `${ad.platform}Integration`,
  'channel.account_id': (ad) => ad.accountId,
  'channel.campaign_id': (ad) => ad.campaignId,
  'channel.adset_id': (ad) => ad.adsetId,
  'channel.ad_id': (ad) => ad.adId,
  'channel.resource_name': (ad) => ad.adName,
  'channel.account_name': (ad) => ad.accountName,
  'channel.campaign_name': (ad) => ad.campaignName,
  'channel.adset_name': (ad) => ad.adsetName,
  'channel.ad_name': (ad) => ad.adName,
  'channel.resource_status': (ad) => ad.status,
  'channel.resource_configured_status': (ad) => ad.configuredStatus,
  'channel.resource_effective_status': (ad) => ad.effectiveStatus,
};

/**
 * The `basicDetails` of an ad row. Budget fields are converted at the latest known rate, and are
 * null when the ad has none or no rate exists for the requested currency.
 */
export function basicDetails(ad: Ad, currency: string, fx: FxTable) {
  const converted = (amount: number | null) => {
    const value = amount === null ? undefined : fx.convertAtLatest(amount, ad.currency, currency);
    return value === undefined ? null : roundForOutput(value);
  };
  return {
    platform: ad.platform,
    resourceSource: `${ad.platform}Integration`,
    accountId: ad.accountId,
    accountName: ad.accountName,
    campaignId: ad.campaignId,
    campaignName: ad.campaignName,
    adsetId: ad.adsetId,
    adsetName: ad.adsetName,
    adId: ad.adId,
    adName: ad.adName,
    resourceName: ad.adName,
    status: ad.status,
    configuredStatus: ad.configuredStatus,
    effectiveStatus: ad.effectiveStatus,
    currency,
    nativeCurrency: ad.currency,
    dailyBudget: converted(ad.dailyBudget ?? null),
    budgetRemaining: converted(ad.budgetRemaining ?? null),
    amountSpent: converted(ad.amountSpent ?? null),
    sourceCreatedAt: ad.createdAt,
    sourceUpdatedAt: ad.updatedAt,
  };
}
