import { randomUUID } from 'node:crypto';
import type { OrderSettings, OrderSettingsInput } from '../schemas/order-settings';

/**
 * Turns a validated PUT body into the complete settings to store (spec 4.1 rules 1, 3 and 4):
 * entries without an id get a new UUID; a filter whose id already exists keeps its `createdAt`;
 * every filter's `updatedAt` is the request time. Filters absent from the body simply are not in
 * the result, which is how they are deleted.
 */
export function assignIdentity(
  input: OrderSettingsInput,
  current: OrderSettings,
  requestTime: Date,
  newId: () => string = randomUUID,
): OrderSettings {
  const now = requestTime.toISOString();
  const createdAtById = new Map(current.exclusionFilters.map((filter) => [filter.id, filter.createdAt]));
  return {
    countPendingOrders: input.countPendingOrders,
    countVoidedOrders: input.countVoidedOrders,
    refundDateAttribution: input.refundDateAttribution,
    exclusionFilters: input.exclusionFilters.map((filter) => {
      const id = filter.id ?? newId();
      return {
        id,
        name: filter.name,
        enabled: filter.enabled,
        conditionGroups: filter.conditionGroups.map((group) => ({
          id: group.id ?? newId(),
          logic: group.logic,
          conditions: group.conditions.map(({ id: conditionId, ...condition }) => ({
            id: conditionId ?? newId(),
            ...condition,
          })),
        })),
        createdAt: createdAtById.get(id) ?? now,
        updatedAt: now,
      };
    }),
  };
}
