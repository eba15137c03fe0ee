import { loadOnce } from '../config/lazy';

/**
 * The Idempotency-Key handling (idempotency.ts), for the `idempotency` member of a write route's
 * endpoint (api-handler.ts). A module of its own so that only the functions of write routes import
 * it: the idempotency store and its errors stay out of every read function's bundle.
 */
export const loadIdempotency = loadOnce(() => import('./idempotency'));
