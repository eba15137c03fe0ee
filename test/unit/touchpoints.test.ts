import { describe, expect, it } from 'vitest';
import { classifyTouchpoint, hostMatches, normalizeSource } from '../../shared/attribution/touchpoints';
import { utmOf } from '../../shared/tracking/utm';

const at = (url: string, extra: { referrer?: string; click?: Record<string, string> } = {}) =>
  classifyTouchpoint({ page: { url, ...(extra.referrer !== undefined ? { referrer: extra.referrer } : {}) }, utm: utmOf(url), click: extra.click });

describe('touchpoint classification', () => {
  it('reads click ids first, in the order gclid, fbc / fbclid, ttclid', () => {
    expect(at('https://shop.example/?utm_source=klaviyo', { click: { gclid: 'g' } })?.source).toBe('google');
    expect(at('https://shop.example/?fbclid=abc&utm_source=newsletter')?.source).toBe('meta');
    expect(at('https://shop.example/', { click: { fbc: 'fb.1.1.abc' } })?.source).toBe('meta');
    expect(at('https://shop.example/?ttclid=t1')?.source).toBe('tiktok');
    expect(at('https://shop.example/?gclid=g&ttclid=t')?.source).toBe('google');
  });

  it('maps utm_source through the alias table, lower-cased, and keeps other sources as they are', () => {
    expect(at('https://shop.example/?utm_source=Facebook')?.source).toBe('meta');
    expect(at('https://shop.example/?utm_source=IG')?.source).toBe('meta');
    expect(at('https://shop.example/?utm_source=adwords')?.source).toBe('google');
    expect(at('https://shop.example/?utm_source=TikTok')?.source).toBe('tiktok');
    expect(at('https://shop.example/?utm_source=Klaviyo')?.source).toBe('klaviyo');
    expect(normalizeSource(' Newsletter ')).toBe('newsletter');
  });

  it('classifies a referrer on another domain: search engines, social networks, anything else', () => {
    expect(at('https://shop.example/p', { referrer: 'https://www.google.co.uk/' })?.source).toBe('organic_search');
    expect(at('https://shop.example/p', { referrer: 'https://duckduckgo.com/?q=x' })?.source).toBe('organic_search');
    expect(at('https://shop.example/p', { referrer: 'https://l.facebook.com/' })?.source).toBe('organic_social');
    expect(at('https://shop.example/p', { referrer: 'https://t.co/abc' })?.source).toBe('organic_social');
    expect(at('https://shop.example/p', { referrer: 'https://blog.example.org/review' })?.source).toBe('referral');
  });

  it('is no touchpoint without a signal: no click id, no utm_source, no referrer or one on the same site', () => {
    expect(at('https://shop.example/p')).toBeUndefined();
    expect(at('https://www.shop.example/p', { referrer: 'https://shop.example/cart' })).toBeUndefined();
    expect(at('https://shop.example/p?utm_medium=email')).toBeUndefined();
  });

  it('carries the five UTM values and the ad ids of the URL, with utm_id as the campaign fallback', () => {
    expect(at('https://shop.example/?utm_source=fb&utm_medium=paid&utm_campaign=spring&utm_content=v1&utm_term=shoes&campaign_id=c1&adset_id=s1&ad_id=a1')).toEqual({
      source: 'meta',
      utm: { utm_source: 'fb', utm_medium: 'paid', utm_campaign: 'spring', utm_content: 'v1', utm_term: 'shoes' },
      campaignId: 'c1',
      adsetId: 's1',
      adId: 'a1',
    });
    expect(at('https://shop.example/?gclid=x&utm_id=987')).toMatchObject({ source: 'google', campaignId: '987', adsetId: null, adId: null });
  });

  it('matches `name.*` host patterns on a label followed by a public suffix only', () => {
    expect(hostMatches('google.com', 'google.*')).toBe(true);
    expect(hostMatches('news.google.co.uk', 'google.*')).toBe(true);
    expect(hostMatches('google.evil.example.com', 'google.*')).toBe(false);
    expect(hostMatches('notbing.com', 'bing.com')).toBe(false);
  });
});
