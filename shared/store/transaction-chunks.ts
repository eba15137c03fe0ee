/** DynamoDB's caps on one TransactWriteItems call: 100 actions and 4 MB; chunks stay under both. */
const TRANSACTION_ITEMS = 100;
const TRANSACTION_BYTES = 3_000_000;

/** Writes in groups, in order, that DynamoDB takes in one transaction each; `sizeOf` estimates a write's bytes. */
export function transactionChunks<T>(writes: readonly T[], sizeOf: (write: T) => number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let bytes = 0;
  for (const write of writes) {
    const size = sizeOf(write);
    if (chunk.length === TRANSACTION_ITEMS || (chunk.length > 0 && bytes + size > TRANSACTION_BYTES)) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(write);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
