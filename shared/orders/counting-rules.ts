import type { ConditionOperator, OrderExclusionField } from '../catalog/order-exclusion-fields';
import { IdentityComponents, identityKeys } from '../analytics/identity-components';
import type { CustomerDigest, QueryOrder } from '../analytics/query-data';
import { isNegatedOperator, isScalarOperator, NEGATION_OF, SCALAR_MATCHES } from '../filters/scalar-operators';
import type { FinancialStatus, Order } from './order';

/**
 * Which orders count, and who their customers are: the one place the query, cohort and
 * attribution figures take these rules from (spec 2.1-2.4).
 *
 * An order counts when
 * - its financial status is `paid`, `refunded` or `partially_refunded`; or `pending` with
 *   `countPendingOrders`; or `voided` with `countVoidedOrders`; and
 * - it matches no enabled exclusion filter. A filter matches when ANY of its condition groups
 *   matches; a group matches when ALL (`and`) or ANY (`or`) of its conditions match.
 *
 * Condition semantics (every operator of spec 2.4, on `sourceName`, `tags`, `value`, `paymentGateway`):
 * - the comparison operators are the query filters' own (filters/scalar-operators.ts);
 * - `exists`: the field has a value (a non-empty tag list); `not_exists` is its negation.
 * - `array_includes`: the list holds the value (every value, when given a list);
 *   `array_includes_all`: every given value; `array_includes_any`: at least one given value.
 * - `tags` is a list: a scalar operator matches when ANY tag matches it; a scalar field is read as
 *   a one-item list by the array operators.
 * - An order without a value for the field matches no positive operator; `not_equals`, `not_in`
 *   and `not_contains` are exactly the negations of `equals`, `in`, `contains`, so they match it.
 */

/** What the rules read of an order. */
export type CountableOrder = Pick<Order, 'financialStatus' | 'sourceName' | 'tags' | 'value' | 'paymentGateway'>;

export interface CountingCondition {
  field: OrderExclusionField;
  operator: ConditionOperator;
  value?: string | number | boolean | string[];
}

export interface CountingSettings {
  countPendingOrders: boolean;
  countVoidedOrders: boolean;
  refundDateAttribution: 'refund_date' | 'order_date';
  exclusionFilters: ReadonlyArray<{
    enabled: boolean;
    conditionGroups: ReadonlyArray<{ logic: 'and' | 'or'; conditions: readonly CountingCondition[] }>;
  }>;
}

const ALWAYS_COUNTED: ReadonlySet<FinancialStatus> = new Set(['paid', 'refunded', 'partially_refunded']);

export function isCountedStatus(status: FinancialStatus, settings: Pick<CountingSettings, 'countPendingOrders' | 'countVoidedOrders'>): boolean {
  if (ALWAYS_COUNTED.has(status)) return true;
  if (status === 'pending') return settings.countPendingOrders;
  if (status === 'voided') return settings.countVoidedOrders;
  return false;
}

export function isExcluded(order: CountableOrder, settings: Pick<CountingSettings, 'exclusionFilters'>): boolean {
  return settings.exclusionFilters.some(
    (filter) =>
      filter.enabled &&
      filter.conditionGroups.some((group) =>
        group.logic === 'and'
          ? group.conditions.every((condition) => conditionMatches(order, condition))
          : group.conditions.some((condition) => conditionMatches(order, condition)),
      ),
  );
}

export function countsOrder(order: CountableOrder, settings: CountingSettings): boolean {
  return isCountedStatus(order.financialStatus, settings) && !isExcluded(order, settings);
}

type Actual = string | number | null;

const asList = (value: CountingCondition['value']): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Whether an order matches one exclusion condition (semantics in the module comment). */
export function conditionMatches(order: CountableOrder, condition: CountingCondition): boolean {
  if (condition.operator === 'not_exists') return !conditionMatches(order, { ...condition, operator: 'exists' });
  if (isNegatedOperator(condition.operator)) return !conditionMatches(order, { ...condition, operator: NEGATION_OF[condition.operator] });
  const values: Actual[] = condition.field === 'tags' ? order.tags : order[condition.field] === null ? [] : [order[condition.field]];
  switch (condition.operator) {
    case 'exists':
      return values.length > 0;
    case 'array_includes':
    case 'array_includes_all':
      return asList(condition.value).length > 0 && asList(condition.value).every((wanted) => values.includes(wanted as Actual));
    case 'array_includes_any':
      return asList(condition.value).some((wanted) => values.includes(wanted as Actual));
    default: {
      if (!isScalarOperator(condition.operator)) return false;
      const matches = SCALAR_MATCHES[condition.operator];
      return values.some((actual) => matches(actual, condition.value));
    }
  }
}

/** What the customer rules read of an order. */
export interface IdentifiedOrder {
  orderId: string;
  orderDate: string;
  customer: { userIds: readonly string[]; emailHashes: readonly string[]; phoneHashes: readonly string[] };
}

/**
 * Customers of a set of orders: orders sharing any user id, email hash or phone hash, transitively,
 * are one customer; an order with no identity is a customer of its own. Returns a stable key per
 * order (equal keys, same customer).
 */
export function customerKeys(orders: readonly IdentifiedOrder[]): Map<string, string> {
  const components = new IdentityComponents();
  const keysOf = new Map(orders.map((order) => [order.orderId, identityKeys(order.customer)]));
  for (const keys of keysOf.values()) components.link(keys);
  const customers = new Map<string, string>();
  for (const [orderId, keys] of keysOf) customers.set(orderId, keys.length > 0 ? components.root(keys[0]!) : `o:${orderId}`);
  return customers;
}

/**
 * The first order of each customer: their earliest COUNTED order (ties by order id), over every
 * order given, which must be the customers' whole stored history. Who is new does not depend on
 * a query's `filters`, only on the counting rules.
 */
export function firstCountedOrders<T extends IdentifiedOrder & CountableOrder>(
  orders: readonly T[],
  settings: CountingSettings,
): { customerOf: Map<string, string>; firstOrderOf: Map<string, string> } {
  const customerOf = customerKeys(orders);
  const first = new Map<string, T>();
  for (const order of orders) {
    if (!countsOrder(order, settings)) continue;
    const customer = customerOf.get(order.orderId)!;
    const current = first.get(customer);
    if (!current || order.orderDate < current.orderDate || (order.orderDate === current.orderDate && order.orderId < current.orderId)) {
      first.set(customer, order);
    }
  }
  return { customerOf, firstOrderOf: new Map([...first].map(([customer, order]) => [customer, order.orderId])) };
}

const isBefore = (a: IdentifiedOrder, b: IdentifiedOrder) => a.orderDate < b.orderDate || (a.orderDate === b.orderDate && a.orderId < b.orderId);

/** Who the customers of the orders a query met are (`metCustomers`). */
export interface MetCustomers {
  /**
   * The key of an order's customer: the id of the customer's earliest order (counted or not), or
   * `o:<orderId>` for an order neither digested nor in the history read (a customer of its own).
   */
  customerOf(order: Pick<QueryOrder, 'orderId' | 'customerDigest'>): string;
  /** Each customer's first counted order id, by customer key. */
  firstOrderOf: ReadonlyMap<string, string>;
}

/** When no measure, dimension or filter asks who is new: every order a customer of its own, none first. */
export const NO_CUSTOMERS: MetCustomers = { customerOf: (order) => `o:${order.orderId}`, firstOrderOf: new Map() };

const usableDigest = (order: Pick<QueryOrder, 'customerDigest'>) => order.customerDigest !== undefined && order.customerDigest.earlier !== null;

/**
 * Who the customers of the orders a query met are, and which order is each one's first counted
 * order: from the customer digest an order carries (new when it counts and none of the customer's
 * earlier orders counts), else from `history`, the whole stored history of the customers of the
 * orders without a usable digest (`firstCountedOrders`). Both name a customer by the id of its
 * earliest order, counted or not, so the two agree on who is who. A digested order's customer is
 * read from its digest when asked, not kept in a map: a year's query meets 100,000 orders.
 */
export function metCustomers(met: readonly QueryOrder[], history: readonly QueryOrder[], settings: CountingSettings): MetCustomers {
  const firstOrderOf = new Map<string, string>();
  for (const order of met) {
    if (!usableDigest(order)) continue;
    const digest = order.customerDigest!;
    if (countsOrder(order, settings) && !digest.earlier!.some((earlier) => countsOrder(earlier, settings))) firstOrderOf.set(digest.customerId, order.orderId);
  }
  const historyCustomerOf = new Map<string, string>();
  if (history.length > 0) {
    const { customerOf: groupOf, firstOrderOf: firstOfGroup } = firstCountedOrders(history, settings);
    const earliest = new Map<string, IdentifiedOrder>();
    for (const order of history) {
      const group = groupOf.get(order.orderId)!;
      const known = earliest.get(group);
      if (!known || isBefore(order, known)) earliest.set(group, order);
    }
    for (const order of history) historyCustomerOf.set(order.orderId, earliest.get(groupOf.get(order.orderId)!)!.orderId);
    for (const [group, first] of firstOfGroup) firstOrderOf.set(earliest.get(group)!.orderId, first);
  }
  return {
    customerOf: (order) => (usableDigest(order) ? order.customerDigest!.customerId : (historyCustomerOf.get(order.orderId) ?? `o:${order.orderId}`)),
    firstOrderOf,
  };
}

/**
 * The customer digest of every order of one customer (all its stored orders): the customer's
 * earliest order id, and each order's earlier orders' counting fields, at most `maxEarlier` of
 * them (beyond, null: the query then reads the history).
 */
export function customerDigests(orders: readonly QueryOrder[], maxEarlier: number): Map<string, CustomerDigest> {
  const sorted = [...orders].sort((a, b) => (isBefore(a, b) ? -1 : isBefore(b, a) ? 1 : 0));
  const digests = new Map<string, CustomerDigest>();
  const customerId = sorted[0]?.orderId ?? '';
  sorted.forEach((order, index) => {
    digests.set(order.orderId, {
      customerId,
      earlier:
        index > maxEarlier
          ? null
          : sorted.slice(0, index).map(({ financialStatus, sourceName, tags, value, paymentGateway }) => ({ financialStatus, sourceName, tags, value, paymentGateway })),
    });
  });
  return digests;
}
