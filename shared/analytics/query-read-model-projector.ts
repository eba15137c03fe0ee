import type { Projector } from '../pipeline/projector';
import { applyOrders, writeInitialReadModels } from '../store/query-read-models';

/**
 * Keeps the analytics query's order read models (order facts by order day, refund day and
 * customer identifier) current with what the pipeline stores. Orders are keyed by orderId, and an
 * older order version never replaces a newer one, so a repeated or reordered batch writes the same
 * state. (The events the query reads are the analytics store's events table.)
 */
export const queryReadModelProjector: Projector = {
  name: 'query-measures',
  async project({ pixelId, orders, deletedOrders = [] }) {
    if (orders.length > 0 || deletedOrders.length > 0) await applyOrders(pixelId, orders, deletedOrders);
  },
  seedInitial: ({ pixelId, orders }) => writeInitialReadModels(pixelId, orders),
};
