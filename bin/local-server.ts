/**
 * `npm start`: the whole service on one machine. Embedded DynamoDB (dynalite, on disk under
 * DATA_DIR), an EventBridge stand-in writing DATA_DIR/events.ndjson, and an HTTP front door that
 * hands each request to the same handler a Lambda would run.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { routeTable } from '../lib/routes';
import { ensureTable, startEmbeddedDynamo } from '../lib/local/dynamodb';
import { startEventBridgeSink } from '../lib/local/eventbridge-sink';
import { startLocalApi, type LambdaHandler } from '../lib/local/local-api';
import { localConfig, useLocalServices } from '../lib/local/local-config';

const config = localConfig();
const log = (line: string) => process.stdout.write(`${line}\n`);

const dynamo = await startEmbeddedDynamo({ path: config.dynamoPath, port: config.dynamoPort }).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') {
    console.error(`DynamoDB port ${config.dynamoPort} is in use (is another "npm start" running?). Set DYNAMODB_PORT to use another.`);
    process.exit(1);
  }
  throw error;
});
const firstStart = await ensureTable(dynamo.endpoint, config.tableName);
const eventBridge = await startEventBridgeSink({ file: config.eventsFile, region: config.region });
useLocalServices(config, { dynamodb: dynamo.endpoint, eventbridge: eventBridge.endpoint });

// Handlers build their SDK clients at import, so they are imported only now that the
// environment points at the local services.
const handlers = new Map<string, LambdaHandler>();
for (const route of routeTable) {
  const module = (await import(pathToFileURL(resolve(route.handler)).href)) as { handler: LambdaHandler };
  handlers.set(route.id, module.handler);
}

if (firstStart) {
  const { seedDemo } = await import('../lib/local/demo-seed');
  const demo = await seedDemo();
  log(`First start: created a demo pixel with ${demo.ads} ads (${demo.days} days of hourly metrics), ${demo.orders} orders, ${demo.events} events and a key with every scope.`);
  log('The key is shown only this once:');
  log(`  x-pixel-id: ${demo.pixelId}`);
  log(`  x-api-key:  ${demo.apiKey}`);
}

const api = await startLocalApi({
  host: config.host,
  port: config.port,
  routes: routeTable,
  handlers,
  onRequest: process.env.LOG_REQUESTS === '0' ? undefined : log,
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE') {
    console.error(`Port ${config.port} is in use. Set PORT to use another.`);
    process.exit(1);
  }
  throw error;
});
log(`Data in ${config.dataDir} (DynamoDB on port ${dynamo.port}, events in ${config.eventsFile})`);
log(`listening on ${api.url}`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: shutting down`);
  await api.close();
  await eventBridge.close();
  await dynamo.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
