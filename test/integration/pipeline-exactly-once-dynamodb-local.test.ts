import { afterAll } from 'vitest';
import { startDynamoDbLocal } from '../support/dynamodb-local';

// Amazon's DynamoDB Local: its conditional writes and batch behaviour are DynamoDB's own. The SDK
// clients are built when the store modules load, so those load only once the endpoint is set.
const local = await startDynamoDbLocal();
process.env.AWS_ENDPOINT_URL_DYNAMODB = local.endpoint;
afterAll(() => local.close());

const { exactlyOnceSuite } = await import('../support/exactly-once-suite');
exactlyOnceSuite('DynamoDB Local');
