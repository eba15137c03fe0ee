import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../shared/http/errors';
import { AsciiJsonWriter } from '../../shared/http/json-text';
import { MAX_RESPONSE_BODY_BYTES, compressResponse } from '../../shared/http/middleware/compress-response';
import { jsonResponse } from '../../shared/http/response';

async function afterResponse(body: string, acceptEncoding?: string, howToNarrow?: string) {
  const request = {
    event: { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } } as unknown as APIGatewayProxyEventV2,
    response: { statusCode: 200, headers: { 'content-type': 'application/json' }, body } as APIGatewayProxyStructuredResultV2,
  };
  await (compressResponse(howToNarrow).after as (r: typeof request) => Promise<void>)(request);
  return request.response;
}

const bigJson = JSON.stringify({ rows: Array.from({ length: 500 }, (_, i) => ({ id: i, name: `Video ${i}`, spend: i * 1.5 })) });

describe('response compression', () => {
  it('gzips a large body for a client that accepts gzip, and the client gets the same JSON back', async () => {
    const response = await afterResponse(bigJson, 'gzip, deflate, br');
    expect(response).toMatchObject({ isBase64Encoded: true, headers: { 'content-encoding': 'gzip', vary: 'accept-encoding' } });
    expect(gunzipSync(Buffer.from(response.body!, 'base64')).toString('utf8')).toBe(bigJson);
  });

  it.each([
    ['no Accept-Encoding', undefined],
    ['only deflate', 'deflate'],
    ['gzip refused with q=0', 'gzip;q=0, identity'],
  ])('leaves the body as it is for %s', async (_, header) => {
    expect(await afterResponse(bigJson, header)).toMatchObject({ body: bigJson, headers: { vary: 'accept-encoding' } });
  });

  it('leaves small bodies uncompressed even when gzip is accepted', async () => {
    expect((await afterResponse('{"ok":true}', 'gzip')).body).toBe('{"ok":true}');
  });

  it('answers 400 with a way out when the body is too large to send uncompressed', async () => {
    const huge = JSON.stringify({ blob: 'x'.repeat(MAX_RESPONSE_BODY_BYTES) });
    await expect(afterResponse(huge)).rejects.toThrow(BadRequestError);
    await expect(afterResponse(huge)).rejects.toThrow(/Accept-Encoding: gzip/);
    // Repetitive JSON compresses far below the limit, so it is sent compressed instead.
    expect((await afterResponse(huge, 'gzip')).isBase64Encoded).toBe(true);
  });

  it('answers 400 when even the compressed body is too large', async () => {
    const incompressible = JSON.stringify({ blob: randomBytes(MAX_RESPONSE_BODY_BYTES).toString('base64') });
    await expect(afterResponse(incompressible, 'gzip')).rejects.toThrow(/even compressed.*fewer rows/);
  });

  it("gives the endpoint's own advice when it has one (query-ads: the columnar format first)", async () => {
    const huge = JSON.stringify({ blob: 'x'.repeat(MAX_RESPONSE_BODY_BYTES) });
    await expect(afterResponse(huge, undefined, 'ask for format "columnar"')).rejects.toThrow(/to get it compressed\); ask for format "columnar"$/);
  });

  it('sends a multi-slice body as one gzip stream that inflates to the same JSON', async () => {
    // Three 1 MB slices and a partial one, with text that crosses every cut.
    const rows = Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `Vidéo – ${i}`, spend: i * 1.37 }));
    const body = JSON.stringify({ rows });
    expect(Buffer.byteLength(body)).toBeGreaterThan(3 * 1024 * 1024);
    const response = await afterResponse(body, 'gzip');
    expect(response.headers).toMatchObject({ 'content-encoding': 'gzip' });
    expect(gunzipSync(Buffer.from(response.body!, 'base64')).toString('utf8')).toBe(body);
  });

  describe('a body written in slices (AsciiJsonWriter)', () => {
    // Pieces of every size: tiny ones, and some longer than a slice, so pieces cross slice ends.
    const pieces = ['{"rows":[', ...Array.from({ length: 400 }, (_, i) => `${i ? ',' : ''}${JSON.stringify({ id: i, blob: 'ab'.repeat(i * 37) })}`), ',"big":"', 'x'.repeat(2_500_000), '"]}'];
    const expected = pieces.join('');
    const written = () => {
      const writer = new AsciiJsonWriter();
      writer.push(...pieces);
      return writer.finish();
    };

    async function afterWritten(acceptEncoding: string | undefined) {
      const request = {
        event: { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } } as unknown as APIGatewayProxyEventV2,
        response: jsonResponse(200, written()),
      };
      await (compressResponse().after as (r: typeof request) => Promise<void>)(request);
      return request.response;
    }

    it('holds the same bytes as the joined text, across several slices', () => {
      const text = written();
      expect(text.slices.length).toBeGreaterThan(3);
      expect(text.byteLength).toBe(expected.length);
      expect(Buffer.concat(text.slices).toString('latin1')).toBe(expected);
      expect(text.text).toBe(expected);
    });

    it('is gzipped from its slices into one stream that inflates to the whole JSON', async () => {
      const response = await afterWritten('gzip');
      expect(response).toMatchObject({ statusCode: 200, isBase64Encoded: true, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json; charset=utf-8' } });
      expect(gunzipSync(Buffer.from(response.body!, 'base64')).toString('utf8')).toBe(expected);
    });

    it('is sent as the joined text to a client without gzip', async () => {
      const small = new AsciiJsonWriter();
      small.push('{"ok":', 'true}');
      const request = { event: { headers: {} } as unknown as APIGatewayProxyEventV2, response: jsonResponse(200, small.finish()) };
      await (compressResponse().after as (r: typeof request) => Promise<void>)(request);
      expect(request.response).toMatchObject({ body: '{"ok":true}', headers: { vary: 'accept-encoding' } });
      expect(JSON.parse(JSON.stringify(request.response)).body).toBe('{"ok":true}');
    });

    it('answers 400 when it is too large to send uncompressed', async () => {
      await expect(afterWritten(undefined)).rejects.toThrow(/Accept-Encoding: gzip/);
    });
  });
});
