import { gzipSync } from 'node:zlib';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fingerprintOf, runIdempotently, type IdempotentRequest } from '../../shared/http/idempotency';

const dynamo = mockClient(DynamoDBDocumentClient);
afterEach(() => dynamo.reset());

const NOW = new Date('2026-03-10T12:00:00.000Z');
const request = (headers: Record<string, string>, content: unknown = { body: { a: 1 } }): IdempotentRequest => ({
  headers,
  pixelId: 'px_1',
  route: 'POST /things',
  content,
  receivedAt: NOW,
});
const ok = { statusCode: 200, body: { id: 'thing-1' } };
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const storedRecord = (members: Record<string, unknown>) => ({
  Item: { PK: 'PIXEL#px_1#IDEMPOTENCY', SK: 'POST /things#k1', token: 'someone-else', ttl: NOW.getTime() / 1000 + 3_600, ...members },
});

describe('runIdempotently', () => {
  it('runs a request without the header as it is, touching no record', async () => {
    const run = vi.fn().mockResolvedValue(ok);

    expect(await runIdempotently(request({}), run)).toEqual(ok);
    expect(run).toHaveBeenCalledOnce();
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('claims the key under the pixel and route, runs the request, and records its response', async () => {
    dynamo.on(PutCommand).resolves({});
    dynamo.on(UpdateCommand).resolves({});

    const response = await runIdempotently(request({ 'idempotency-key': 'k1' }), async () => ok);

    expect(response).toEqual(ok);
    const claim = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(claim.Item).toMatchObject({ PK: 'PIXEL#px_1#IDEMPOTENCY', SK: 'POST /things#k1', state: 'in_progress', ttl: NOW.getTime() / 1000 + 86_400 });
    const record = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(record.ExpressionAttributeValues).toMatchObject({ ':completed': 'completed', ':token': claim.Item!.token });
  });

  it('answers the recorded response, marked as replayed, without running the request', async () => {
    const fingerprint = fingerprintOf({ body: { a: 1 } });
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves(storedRecord({ state: 'completed', fingerprint, response: gzipSync(JSON.stringify(ok)) }));
    const run = vi.fn();

    const response = await runIdempotently(request({ 'idempotency-key': 'k1' }), run);

    expect(response).toEqual({ ...ok, headers: { 'idempotent-replayed': 'true' } });
    expect(run).not.toHaveBeenCalled();
  });

  it('treats the same JSON value with keys in another order as the same request', () => {
    expect(fingerprintOf({ body: { a: 1, b: [1, { c: 2, d: 3 }] } })).toBe(fingerprintOf({ body: { b: [1, { d: 3, c: 2 }], a: 1 } }));
    expect(fingerprintOf({ body: { a: 1 } })).not.toBe(fingerprintOf({ body: { a: '1' } }));
  });

  it.each([
    ['completed', 422],
    ['in_progress', 422],
  ])('answers 422 when a %s record of the key holds another request', async (state, status) => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves(storedRecord({ state, fingerprint: 'other', leaseUntil: Date.now() + 60_000, response: gzipSync('{}') }));

    await expect(runIdempotently(request({ 'idempotency-key': 'k1' }), vi.fn())).rejects.toMatchObject({ statusCode: status });
  });

  it('answers 409 with Retry-After while the same request holds a live claim', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves(storedRecord({ state: 'in_progress', fingerprint: fingerprintOf({ body: { a: 1 } }), leaseUntil: Date.now() + 60_000 }));

    await expect(runIdempotently(request({ 'idempotency-key': 'k1' }), vi.fn())).rejects.toMatchObject({
      statusCode: 409,
      headers: { 'retry-after': '1' },
    });
  });

  it('releases the key when the request fails, so that a retry runs', async () => {
    dynamo.on(PutCommand).resolves({});
    dynamo.on(DeleteCommand).resolves({});
    const failure = new Error('boom');

    await expect(runIdempotently(request({ 'idempotency-key': 'k1' }), () => Promise.reject(failure))).rejects.toBe(failure);
    const claimToken = dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item!.token;
    expect(dynamo.commandCalls(DeleteCommand)[0]!.args[0].input.ExpressionAttributeValues).toEqual({ ':token': claimToken });
  });

  it('answers the real response of a request that ran even when recording it fails', async () => {
    dynamo.on(PutCommand).resolves({});
    dynamo.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    expect(await runIdempotently(request({ 'idempotency-key': 'k1' }), async () => ok)).toEqual(ok);
  });

  it('does not keep a response too large for one item: it releases the key instead', async () => {
    dynamo.on(PutCommand).resolves({});
    dynamo.on(DeleteCommand).resolves({});
    const huge = { statusCode: 200, body: { noise: Array.from({ length: 60_000 }, (_, i) => `${i}-${Math.random()}`) } };

    expect(await runIdempotently(request({ 'idempotency-key': 'k1' }), async () => huge)).toEqual(huge);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(1);
  });
});
