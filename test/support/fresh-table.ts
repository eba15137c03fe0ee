import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ensureTable } from '../../lib/local/dynamodb';

/** Points this test file's repositories at a table of its own on the shared dynalite. */
export async function useFreshTable(): Promise<string> {
  const tableName = `test-${randomUUID()}`;
  await ensureTable(requiredTestEnv('AWS_ENDPOINT_URL_DYNAMODB'), tableName);
  process.env.TABLE_NAME = tableName;
  return tableName;
}

/** Events the sink recorded on this run, optionally only those about one pixel. */
export function recordedEvents(pixelId?: string): Array<{ 'detail-type': string; source: string; detail: Record<string, unknown> }> {
  let text = '';
  try {
    text = readFileSync(requiredTestEnv('TEST_EVENTS_FILE'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((event) => pixelId === undefined || event.detail?.pixelId === pixelId);
}

function requiredTestEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: is test/support/global-setup.ts registered?`);
  return value;
}
