import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo } from '../../lib/local/dynamodb';
import { startEventBridgeSink } from '../../lib/local/eventbridge-sink';

/**
 * One in-memory dynalite and one EventBridge sink for the whole run, started before the test
 * workers so they inherit the endpoints through the standard variables. Each integration test
 * file creates its own table (see `useFreshTable`), so files never see each other's data.
 */
export default async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'api-tests-'));
  const dynamo = await startEmbeddedDynamo();
  const eventsFile = join(dir, 'events.ndjson');
  const sink = await startEventBridgeSink({ file: eventsFile, region: 'us-east-1' });
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = sink.endpoint;
  process.env.TEST_EVENTS_FILE = eventsFile;
  return async () => {
    await sink.close();
    await dynamo.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
