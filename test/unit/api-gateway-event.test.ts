import { describe, expect, it } from 'vitest';
import { toApiGatewayEvent } from '../../lib/local/api-gateway-event';

const NOW = new Date('2026-03-01T10:11:12.345Z');

function build(overrides: { url?: string; rawHeaders?: string[]; body?: Buffer } = {}) {
  return toApiGatewayEvent(
    {
      method: 'POST',
      url: overrides.url ?? '/views/v1/copy?b=2&a=1&a=3&empty=',
      rawHeaders: overrides.rawHeaders ?? [
        'Content-Type', 'application/json',
        'X-Api-Key', 'upstack_x',
        'Accept', 'text/html',
        'accept', 'application/json',
        'Cookie', 'a=1; b=2',
        'User-Agent', 'curl/8',
      ],
      body: overrides.body ?? Buffer.from('{"name":"x"}'),
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
    },
    { method: 'POST', path: '/views/{id}/copy', pathParameters: { id: 'v1' } },
    { requestId: 'req-1', now: NOW, domainName: 'localhost:3000' },
  );
}

describe('API Gateway v2 events built by the local server', () => {
  it('has the payload 2.0 shape a deployed function receives', () => {
    // Field by field against the shape of a captured HTTP API event (Powertools' apigw-http fixtures).
    expect(build()).toEqual({
      version: '2.0',
      routeKey: 'POST /views/{id}/copy',
      rawPath: '/views/v1/copy',
      rawQueryString: 'b=2&a=1&a=3&empty=',
      cookies: ['a=1', 'b=2'],
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'upstack_x',
        accept: 'text/html,application/json',
        'user-agent': 'curl/8',
      },
      queryStringParameters: { b: '2', a: '1,3', empty: '' },
      pathParameters: { id: 'v1' },
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: 'localhost:3000',
        domainPrefix: 'localhost:3000',
        http: { method: 'POST', path: '/views/v1/copy', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'curl/8' },
        requestId: 'req-1',
        routeKey: 'POST /views/{id}/copy',
        stage: '$default',
        time: '01/Mar/2026:10:11:12 +0000',
        timeEpoch: NOW.getTime(),
      },
      body: '{"name":"x"}',
      isBase64Encoded: false,
    });
  });

  it('omits the optional keys when there is nothing to put in them', () => {
    const event = build({ url: '/views/v1/copy', rawHeaders: [], body: Buffer.alloc(0) });
    expect(event).not.toHaveProperty('cookies');
    expect(event).not.toHaveProperty('queryStringParameters');
    expect(event).not.toHaveProperty('body');
    expect(event.isBase64Encoded).toBe(false);
    expect(event.rawQueryString).toBe('');
  });

  it('base64-encodes a binary body', () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const event = build({ rawHeaders: ['Content-Type', 'application/octet-stream'], body: bytes });
    expect(event).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
  });

  it.each(['application/json', 'text/plain'])('passes a %s body that is not valid UTF-8 as its bytes, base64-encoded', (type) => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('"}')]);
    const event = build({ rawHeaders: ['Content-Type', type], body: bytes });
    expect(event).toMatchObject({ isBase64Encoded: true, body: bytes.toString('base64') });
  });

  it('keeps __proto__ and constructor as ordinary query parameters and headers, as the JSON event would', () => {
    const event = build({ url: '/x?__proto__=1&constructor=2', rawHeaders: ['__proto__', 'h'] });
    expect(Object.keys(event.queryStringParameters!)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(event.queryStringParameters)).toBe(Object.prototype);
    expect(Object.hasOwn(event.headers, '__proto__')).toBe(true);
  });
});
