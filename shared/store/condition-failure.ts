import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A conditional write refused by its condition; matched by name too, as errors cross SDK copies and bundles. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException';
}

/**
 * Sends a conditional write: true when it was written, false when its condition refused it (what
 * the condition guards against is already so: the item exists, a newer version stands); any other
 * error is thrown.
 */
export async function unlessRefused(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}
