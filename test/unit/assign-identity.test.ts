import { describe, expect, it } from 'vitest';
import { assignIdentity } from '../../shared/order-settings/assign-identity';
import { defaultOrderSettings, orderSettingsInputSchema } from '../../shared/schemas/order-settings';
import { validSettings } from '../support/order-settings-fixtures';

const T1 = new Date('2026-03-01T10:00:00.000Z');
const T2 = new Date('2026-03-02T12:30:00.000Z');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('assigning identity on replace', () => {
  it('gives every new filter, group and condition a UUID, and new filters both timestamps', () => {
    const result = assignIdentity(orderSettingsInputSchema.parse(validSettings()), defaultOrderSettings(), T1);
    const [filter] = result.exclusionFilters;
    expect(filter).toMatchObject({ createdAt: T1.toISOString(), updatedAt: T1.toISOString() });
    expect(filter!.id).toMatch(UUID_V4);
    expect(filter!.conditionGroups[0]!.id).toMatch(UUID_V4);
    for (const condition of filter!.conditionGroups[0]!.conditions) expect(condition.id).toMatch(UUID_V4);
  });

  it('keeps createdAt of a filter sent back with its id and moves every updatedAt to the request time', () => {
    // Prepare: stored settings with one filter, then a body that keeps it and adds another.
    const stored = assignIdentity(orderSettingsInputSchema.parse(validSettings()), defaultOrderSettings(), T1);
    const kept = stored.exclusionFilters[0]!;
    const body = orderSettingsInputSchema.parse(
      validSettings({ exclusionFilters: [{ ...kept, enabled: false }, { ...validSettings().exclusionFilters[0], name: 'New' }] }),
    );
    // Act
    const result = assignIdentity(body, stored, T2);
    // Assess
    expect(result.exclusionFilters[0]).toMatchObject({ id: kept.id, createdAt: T1.toISOString(), updatedAt: T2.toISOString(), enabled: false });
    expect(result.exclusionFilters[1]).toMatchObject({ createdAt: T2.toISOString(), updatedAt: T2.toISOString() });
    expect(result.exclusionFilters[1]!.id).not.toBe(kept.id);
  });

  it('treats an id the account never had as a client-chosen id for a new filter', () => {
    const id = '5b8e3f0e-2a7c-4f43-9a57-0c6a3f0c5d11';
    const body = orderSettingsInputSchema.parse(validSettings({ exclusionFilters: [{ ...validSettings().exclusionFilters[0], id }] }));
    const result = assignIdentity(body, defaultOrderSettings(), T2);
    expect(result.exclusionFilters[0]).toMatchObject({ id, createdAt: T2.toISOString() });
  });

  it('drops filters absent from the body', () => {
    const stored = assignIdentity(orderSettingsInputSchema.parse(validSettings()), defaultOrderSettings(), T1);
    const result = assignIdentity(orderSettingsInputSchema.parse(validSettings({ exclusionFilters: [] })), stored, T2);
    expect(result.exclusionFilters).toEqual([]);
  });
});
