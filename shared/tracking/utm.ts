/** The campaign parameters attribution reads, as they appear in landing-page URLs. */
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type UtmParameter = (typeof UTM_PARAMETERS)[number];
export type Utm = Partial<Record<UtmParameter, string>>;

/**
 * The UTM parameters of a page URL, decoded; empty values are left out, and the first of a
 * repeated parameter wins (what browsers' URLSearchParams.get and GA do). Parsed once at ingestion
 * so analytics never re-parses URLs. `undefined` when the URL carries none.
 */
export function utmOf(url: string | undefined): Utm | undefined {
  if (!url) return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const utm: Utm = {};
  for (const name of UTM_PARAMETERS) {
    const value = params.get(name)?.trim();
    if (value) utm[name] = value;
  }
  return Object.keys(utm).length > 0 ? utm : undefined;
}
