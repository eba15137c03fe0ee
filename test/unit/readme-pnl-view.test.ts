import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDashboardViewSchema } from '../../shared/schemas/dashboard-view';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README P&L view example', () => {
  it('is a body POST /accounts/api/dashboard/views accepts', () => {
    const start = readme.indexOf('{ "name": "P&L", "type": "pnl_view"');
    expect(start).toBeGreaterThan(0);
    const body = JSON.parse(readme.slice(start, readme.indexOf('```', start)));
    const parsed = createDashboardViewSchema.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });
});
