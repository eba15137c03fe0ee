import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { configFromEnv, readableError, requestFor } from '../../lib/mcp/server';
import { MCP_TOOLS, toolDefinitions } from '../../lib/mcp/tools';
import { routes } from '../../lib/routes';

const tools = toolDefinitions();
const config = { baseUrl: 'http://api.test', apiKey: 'k', pixelId: 'px_1' };
const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;

describe('the MCP tools, derived from the route table and its OpenAPI operations', () => {
  it('offers only routes that change nothing', () => {
    for (const routeId of Object.values(MCP_TOOLS)) expect(routes[routeId].writes).toBe(false);
  });

  it('gives each tool a valid JSON Schema that accepts a valid request and refuses an unknown argument', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const definition of tools) {
      expect(ajv.validateSchema(definition.inputSchema), definition.name).toBe(true);
      const validate = ajv.compile(definition.inputSchema);
      expect(validate({ surely_not_an_argument: 1 }), definition.name).toBe(false);
    }
    const query = ajv.compile(tool('query').inputSchema);
    const valid = { measures: ['orders.orders'], dateRange: { start: '2026-01-01', end: '2026-01-02' } };
    expect(query(valid)).toBe(true);
    // The filter grammar travels with the tool, so an agent sees how to write one.
    expect(query({ ...valid, filters: { and: [{ field: 'orders.source_name', op: 'equals', value: 'web' }, { not: { field: 'orders.tag', op: 'in', value: ['b2b'] } }] } })).toBe(true);
    expect(query({ ...valid, filters: { and: [] } })).toBe(false);
    expect(query({ ...valid, filters: { field: 'orders.tag', operator: 'equals', value: 'x' } })).toBe(false);
  });

  it('puts each argument where its route takes it, and the configured pixel in a body that has pixelId', () => {
    expect(requestFor(tool('get_dashboard_view'), { dashboardViewId: 'a/b' }, config)).toEqual({
      method: 'GET',
      url: 'http://api.test/accounts/api/dashboard/views/a%2Fb',
    });
    expect(requestFor(tool('list_measures'), { context: 'query', search: 'roas' }, config).url).toBe('http://api.test/db-mgmt/api/measures?context=query&search=roas');
    const queryAds = requestFor(tool('query_ads'), { limit: 5 }, config);
    expect(queryAds).toMatchObject({ method: 'POST', url: 'http://api.test/db-mgmt/api/query-ads' });
    expect(JSON.parse(queryAds.body!)).toEqual({ pixelId: 'px_1', limit: 5 });
  });

  it('reads its configuration from the environment and says what is missing', () => {
    expect(() => configFromEnv({})).toThrow('Set MERCHANT_API_KEY and MERCHANT_PIXEL_ID');
    expect(configFromEnv({ MERCHANT_API_KEY: 'k', MERCHANT_PIXEL_ID: 'p', MERCHANT_API_URL: 'https://x.test/' })).toEqual({ baseUrl: 'https://x.test', apiKey: 'k', pixelId: 'p' });
    expect(configFromEnv({ MERCHANT_API_KEY: 'k', MERCHANT_PIXEL_ID: 'p' }).baseUrl).toBe('http://127.0.0.1:3000');
  });

  it('turns both error envelopes into lines an agent can read', () => {
    expect(readableError(400, { message: 'Request validation failed', errors: [{ message: 'Required', key: 'dateRange', path: ['dateRange'] }] })).toBe(
      'HTTP 400: Request validation failed\n- dateRange: Required',
    );
    expect(readableError(400, { message: '1 problem', requestId: 'r', error: { code: 'validation_failed', details: [{ index: 0, path: [], code: 'x', message: 'Bad' }] } })).toBe(
      'HTTP 400: 1 problem\n- (body): Bad',
    );
  });
});
