import { readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ACCOUNT_UPDATED, accountUpdatedDetailSchema } from '../../shared/events/account-updated';
import { EVENT_SOURCE, EventPublishError, publishAccountUpdated } from '../../shared/events/event-publisher';

const SCHEMA_FILE = new URL('../../schemas/events/account-updated.schema.json', import.meta.url);

function generatedSchema() {
  return {
    $id: 'https://schemas.merchant-analytics.dev/events/account-updated.json',
    title: 'accountUpdated event detail',
    ...z.toJSONSchema(accountUpdatedDetailSchema, { target: 'draft-2020-12' }),
  };
}

const eventBridge = mockClient(EventBridgeClient);
afterEach(() => eventBridge.reset());

const detail = {
  eventId: 'px_1:orderSettings:3',
  pixelId: 'px_1',
  actor: 'cli:ak_0123',
  change: { kind: 'orderSettings' as const },
  occurredAt: '2026-03-01T10:00:00.000Z',
};

describe('the accountUpdated contract with subscribers', () => {
  it('publishes the JSON Schema that the detail schema generates (UPDATE_SCHEMAS=1 rewrites it)', () => {
    const generated = `${JSON.stringify(generatedSchema(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(SCHEMA_FILE, generated);
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(generated);
  });

  it('publishes events whose detail validates against the published schema', async () => {
    // Prepare
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
    const ajv = new Ajv2020({ strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
    // Act
    await publishAccountUpdated(detail);
    // Assess
    const [call] = eventBridge.commandCalls(PutEventsCommand);
    const entry = call!.args[0].input.Entries![0]!;
    expect(entry).toMatchObject({ Source: EVENT_SOURCE, DetailType: ACCOUNT_UPDATED, EventBusName: 'test-bus' });
    const published = JSON.parse(entry.Detail!);
    expect(validate(published), JSON.stringify(validate.errors)).toBe(true);
    expect(published).toEqual(detail);
  });

  it('the schema rejects a detail with the wrong actor form, so it does constrain publishers', () => {
    const ajv = new Ajv2020();
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
    expect(validate({ ...detail, actor: 'ak_0123' })).toBe(false);
    expect(validate({ ...detail, change: { kind: 'somethingElse' } })).toBe(false);
  });
});

describe('publishing failures', () => {
  it('treats FailedEntryCount > 0 as a failure even though EventBridge answered 200', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
    });
    await expect(publishAccountUpdated(detail)).rejects.toThrow(EventPublishError);
    await expect(publishAccountUpdated(detail)).rejects.toThrow(/InternalFailure/);
  });

  it('propagates a transport failure', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('socket hang up'));
    await expect(publishAccountUpdated(detail)).rejects.toThrow('socket hang up');
  });
});
