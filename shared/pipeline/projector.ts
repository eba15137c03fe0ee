import type { DeletedOrder, VersionedOrder } from '../analytics/store/order-store';
import type { StoredEvent } from '../tracking/stored-event';

/**
 * The interface read models plug into (per-day rollups, the identity graph, touchpoints, costs).
 *
 * The consumer (consumer.ts) calls every registered projector for every batch it projects, after
 * the events and orders of the batch are stored, all side by side: a projector keeps items of its
 * own and never reads another's; `npm run import-orders` calls them for the orders
 * it changed; `npm run rebuild-read-models` replays stored events and orders through them.
 *
 * The contract a projector must keep: its state is a function of the stored events and orders it
 * has been shown, never of how often or in which order it was shown them. It is called again for
 * entries it has seen (a retried batch, a crash after some projectors ran, a rebuild) and entries
 * arrive in any order (concurrent requests, a redriven failure). Key what you write by something
 * stable (`entryId`, `eventId`, `orderId`) and overwrite or take the union, never increment
 * blindly: e.g. a daily rollup stores each entry's contribution under `<day>#<entryId>` and sums
 * on read (or keeps a per-entry map it re-sums), so seeing an entry twice writes the same value.
 *
 * A projector that throws fails the batch: it is retried whole (every projector again), so each
 * must tolerate being run after a partial run of itself.
 */
export interface Projector {
  /** Stable, kebab-case; `npm run rebuild-read-models -- --projector <name>` selects by it. */
  readonly name: string;
  project(batch: ProjectionBatch): Promise<void>;
  /**
   * Optional: writes this read model for a pixel that has none of its items yet, from a whole
   * set of stored entries and orders at once, with bulk writes of the same items `project` would
   * leave (the first start's demo data, benchmark datasets). Without it, seeding runs `project`.
   */
  seedInitial?(batch: ProjectionBatch): Promise<void>;
}

export interface ProjectionBatch {
  pixelId: string;
  entries: ProjectedEntry[];
  /**
   * Orders the batch touched, as stored after it: the whole merged order, not the change, so a
   * projector can overwrite its copy. Orders are folded from all their sources, so this is the
   * same whichever order entries arrive in. `version` is the order store's: a projector that keeps a
   * copy never replaces a newer version with an older one (a rebuild or an import can race the drain).
   */
  orders: VersionedOrder[];
  /**
   * Orders the batch left without any statement (their only statement was a delivery that lost to
   * an earlier one), with the version that deleted them: newer than any copy a projector holds, so
   * it drops its copy unless it holds a newer version still (the order was made again since). A
   * re-run reports the same deletion again. Absent means none.
   */
  deletedOrders?: DeletedOrder[];
}

export interface ProjectedEntry {
  entryId: string;
  acceptedAt: string;
  /** The entry's events that are stored: first deliveries of their eventId, in entry order. */
  events: StoredEvent[];
  /**
   * Deliveries of other entries this entry's events won over (the same eventId, later in the
   * log, projected earlier): whatever a projector counted for them must be taken back.
   */
  superseded: Array<{ entryId: string; eventId: string; /** UTC day of the superseded delivery. */ day: string }>;
  /**
   * The entry's own deliveries that are not stored (an earlier delivery of their eventId is), each
   * listed as superseded in its page: with `events`, every delivery of the entry's pages. A
   * projector that keeps per-entry contributions records what it left out, so a later report of
   * one of them in `superseded` is known to be counted already (or not). Absent means none.
   */
  lost?: StoredEvent[];
}
