import { afterAll } from 'vitest';
import { startDynamoDbLocal } from '../support/dynamodb-local';

// Amazon's DynamoDB Local, whose conditional writes are the service's own. The
// SDK clients are built when the store modules load, so those load only once the endpoint is set.
const local = await startDynamoDbLocal();
process.env.AWS_ENDPOINT_URL_DYNAMODB = local.endpoint;
afterAll(() => local.close());

const { orderWritesSuite } = await import('../support/order-writes-suite');
orderWritesSuite('DynamoDB Local');
