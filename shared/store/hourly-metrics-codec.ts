/**
 * The binary form of one ad's metrics for one UTC month, stored as one DynamoDB Binary attribute.
 *
 * Layout: one format byte (1), then one 42-byte record per hour that has data, in hour order:
 *   uint16 LE  hour of the month (0 = the 1st at 00:00 UTC, at most 743)
 *   float64 LE spend, impressions, clicks, conversions, conversionValue
 * float64 keeps every imported number exactly (812.4 reads back as 812.4, counts up to 2^53).
 * A full month is 31 KB, far below the 400 KB item limit, and a query over a date range reads
 * only the months it touches.
 */
export interface HourlyMetrics {
  /** Epoch milliseconds of the start of the UTC hour. */
  hour: number;
  spend: number;
  impressions: number;
  clicks: number;
  conversions: number;
  conversionValue: number;
}

const FORMAT = 1;
const HEADER_BYTES = 1;
const RECORD_BYTES = 2 + 5 * 8;
const HOUR_MS = 3_600_000;

/** `YYYY-MM` of the UTC month an instant falls in. */
export function monthKeyOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function monthStartOf(monthKey: string): number {
  return Date.UTC(Number(monthKey.slice(0, 4)), Number(monthKey.slice(5, 7)) - 1, 1);
}

/** Encodes hours that all fall in `monthKey`'s month; they are written in hour order. */
export function encodeMonth(monthKey: string, hours: readonly HourlyMetrics[]): Uint8Array {
  const monthStart = monthStartOf(monthKey);
  const sorted = [...hours].sort((a, b) => a.hour - b.hour);
  const bytes = new Uint8Array(HEADER_BYTES + sorted.length * RECORD_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, FORMAT);
  let offset = HEADER_BYTES;
  for (const row of sorted) {
    const index = (row.hour - monthStart) / HOUR_MS;
    if (!Number.isInteger(index) || index < 0 || index > 743 || monthKeyOf(row.hour) !== monthKey) {
      throw new RangeError(`Hour ${new Date(row.hour).toISOString()} is not an hour of month ${monthKey}`);
    }
    view.setUint16(offset, index, true);
    view.setFloat64(offset + 2, row.spend, true);
    view.setFloat64(offset + 10, row.impressions, true);
    view.setFloat64(offset + 18, row.clicks, true);
    view.setFloat64(offset + 26, row.conversions, true);
    view.setFloat64(offset + 34, row.conversionValue, true);
    offset += RECORD_BYTES;
  }
  return bytes;
}

/** Decodes a month, in hour order. */
export function decodeMonth(monthKey: string, bytes: Uint8Array): HourlyMetrics[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER_BYTES || view.getUint8(0) !== FORMAT || (bytes.byteLength - HEADER_BYTES) % RECORD_BYTES !== 0) {
    throw new Error(`Hourly metrics of month ${monthKey} are not in format ${FORMAT}`);
  }
  const monthStart = monthStartOf(monthKey);
  const rows: HourlyMetrics[] = [];
  for (let offset = HEADER_BYTES; offset < bytes.byteLength; offset += RECORD_BYTES) {
    rows.push({
      hour: monthStart + view.getUint16(offset, true) * HOUR_MS,
      spend: view.getFloat64(offset + 2, true),
      impressions: view.getFloat64(offset + 10, true),
      clicks: view.getFloat64(offset + 18, true),
      conversions: view.getFloat64(offset + 26, true),
      conversionValue: view.getFloat64(offset + 34, true),
    });
  }
  return rows;
}
