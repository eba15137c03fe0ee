import type { OrderSettingsInput } from '../shared/schemas/order-settings';
import type { BenchRequest } from './invoke';

/**
 * One warm-latency scenario: a route of the route table and the request sent to it, again and
 * again. Adding a scenario is one entry here; the runner mints a key with the scopes the routes
 * need and reports the case under its id.
 */
export interface LatencyCase extends BenchRequest {
  id: string;
}

/** A document of the size a merchant with a few exclusion rules sends: enough to exercise validation. */
const realisticOrderSettings: OrderSettingsInput = {
  countPendingOrders: true,
  countVoidedOrders: false,
  refundDateAttribution: 'order_date',
  exclusionFilters: [
    {
      name: 'Point-of-sale and wholesale',
      enabled: true,
      conditionGroups: [
        {
          logic: 'or',
          conditions: [
            { field: 'sourceName', operator: 'equals', value: 'pos' },
            { field: 'sourceName', operator: 'in', value: ['wholesale', 'b2b-portal'] },
          ],
        },
        {
          logic: 'and',
          conditions: [
            { field: 'tags', operator: 'array_includes', value: 'wholesale' },
            { field: 'value', operator: 'greater_than', value: 1000 },
          ],
        },
      ],
    },
    {
      name: 'Test orders',
      enabled: false,
      conditionGroups: [
        {
          logic: 'and',
          conditions: [
            { field: 'paymentGateway', operator: 'equals', value: 'bogus' },
            { field: 'value', operator: 'less_than', value: 1 },
            { field: 'tags', operator: 'array_includes_any', value: ['test', 'qa'] },
          ],
        },
      ],
    },
  ],
};

export const latencyCases: readonly LatencyCase[] = [
  { id: 'getOrderSettings', routeId: 'getOrderSettings' },
  { id: 'putOrderSettings', routeId: 'putOrderSettings', body: realisticOrderSettings },
];
