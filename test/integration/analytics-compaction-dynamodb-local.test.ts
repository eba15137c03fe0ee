import { afterAll, beforeAll } from 'vitest';
import { startDynamoDbLocal } from '../support/dynamodb-local';

// Amazon's DynamoDB Local: it validates update expressions as DynamoDB does (it refuses, for one,
// an update that adds to and deletes from the same set, which dynalite accepts). The SDK clients
// are built when the store modules load, so those load only once the endpoint is set.
const local = await startDynamoDbLocal();
process.env.AWS_ENDPOINT_URL_DYNAMODB = local.endpoint;
afterAll(() => local.close());

const { useFreshTable } = await import('../support/fresh-table');
const { compactionSuite } = await import('../support/compaction-suite');
beforeAll(async () => {
  await useFreshTable();
});
// The directory store: what is checked here is DynamoDB's side (every write compaction and the live set make).
compactionSuite({ store: 'a directory on DynamoDB Local', isRetired: async () => false, long: false });
