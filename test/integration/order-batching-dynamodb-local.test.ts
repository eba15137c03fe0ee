import { afterAll } from 'vitest';
import { startDynamoDbLocal } from '../support/dynamodb-local';

// Amazon's DynamoDB Local, which has TransactWriteItems (dynalite has not): the batched path. The
// SDK clients are built when the store modules load, so those load only once the endpoint is set.
const local = await startDynamoDbLocal();
process.env.AWS_ENDPOINT_URL_DYNAMODB = local.endpoint;
afterAll(() => local.close());

const { orderBatchingSuite } = await import('../support/order-batching-suite');
orderBatchingSuite('DynamoDB Local');
