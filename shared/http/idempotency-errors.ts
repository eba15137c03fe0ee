import { BadRequestError, ConflictError, UnprocessableContentError } from './errors';

/**
 * The Idempotency-Key failures (idempotency.ts), apart from the code that reaches the store, so
 * an error responder can tell them apart without loading the store at module load.
 */
export class InvalidIdempotencyKeyError extends BadRequestError {}
export class IdempotencyKeyInUseError extends ConflictError {}
export class IdempotencyKeyReusedError extends UnprocessableContentError {}
