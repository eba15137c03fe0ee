import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A conditional write refused by its condition; matched by name too, as errors cross SDK copies and bundles. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException';
}
