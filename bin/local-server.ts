/**
 * `npm start`: the whole service on one machine. Embedded DynamoDB (dynalite, on disk under
 * DATA_DIR), an EventBridge stand-in writing DATA_DIR/events.ndjson, and an HTTP front door that
 * hands each request to the same handler a Lambda would run.
 *
 * Every part it starts joins `services`, which stops them newest first on SIGINT/SIGTERM or a
 * failed start: a background worker on the store is one `services.add` after the store.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { publicRouteTable } from '../lib/public-routes';
import { routeTable } from '../lib/routes';
import { awaitExitingHolder, lockDataDir } from '../lib/local/data-dir-lock';
import { ensureTable, startEmbeddedDynamo } from '../lib/local/dynamodb';
import { startEventBridgeSink } from '../lib/local/eventbridge-sink';
import { Lifecycle, StartupError } from '../lib/local/lifecycle';
import { startLocalApi, type LambdaHandler } from '../lib/local/local-api';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { assertPortsFree } from '../lib/local/ports';

const config = localConfig();
const log = (line: string) => process.stdout.write(`${line}\n`);
const services = new Lifecycle(log);
services.closeOnSignals();

try {
  // A previous server on this data directory killed a moment ago may still be releasing its ports and store.
  await awaitExitingHolder(config.dataDir);
  // Nothing is written before both ports and the data directory are known to be ours.
  await assertPortsFree(config.host, [
    { port: config.port, variable: 'PORT', what: 'the API' },
    { port: config.dynamoPort, variable: 'DYNAMODB_PORT', what: 'DynamoDB' },
  ]);
  services.add('data directory lock', lockDataDir(config.dataDir, { holder: 'server', port: config.port, dynamoPort: config.dynamoPort }));

  const dynamo = services.add('DynamoDB', await startEmbeddedDynamo({ path: config.dynamoPath, port: config.dynamoPort }));
  const tableCreated = await ensureTable(dynamo.endpoint, config.tableName);
  const eventBridge = services.add('EventBridge', await startEventBridgeSink({ file: config.eventsFile, region: config.region }));
  useLocalServices(config, { dynamodb: dynamo.endpoint, eventbridge: eventBridge.endpoint });

  // The stream trigger's local stand-in, on a thread of its own: projects accepted events and
  // publishes outboxes. Its thread loads its modules while this one loads the handlers; it joins
  // the services once started, so it stops after the API (nothing new is accepted) and before the
  // store. (A start that fails before then exits the process, and the thread with it.)
  const { startDrainThread } = await import('../lib/local/drain-thread');
  const drainStarting = startDrainThread();
  drainStarting.catch(() => undefined);

  // Handlers build their SDK clients at import, so they are imported only now that the
  // environment points at the local services.
  const handlers = new Map<string, LambdaHandler>();
  // The public routes (the OpenAPI document and its reference page) are served alongside the table's.
  const served = [...routeTable, ...publicRouteTable];
  for (const route of served) {
    const module = (await import(pathToFileURL(resolve(route.handler)).href)) as { handler: LambdaHandler };
    handlers.set(route.id, module.handler);
  }

  services.add('projection drain', await drainStarting);

  // Bound before the first start writes anything, so a port taken meanwhile cannot cut it short.
  const api = services.add(
    'the API',
    await startLocalApi({
      host: config.host,
      port: config.port,
      routes: served,
      handlers,
      onRequest: process.env.LOG_REQUESTS === '0' ? undefined : log,
    }),
  );

  const { completeFirstStart } = await import('../lib/local/first-start');
  const { DEMO_PIXEL_ID, demoSeedSteps } = await import('../lib/local/demo-seed');
  await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps: demoSeedSteps, tableCreated, log });

  log(`Data in ${config.dataDir} (DynamoDB on port ${dynamo.port}, events in ${config.eventsFile}); Node ${process.version}`);
  log(`listening on ${api.url}`);
} catch (error) {
  // A signal during the start is already stopping everything; what failed because of it is moot.
  if (services.stopping) await new Promise(() => undefined);
  await services.close();
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') console.error(`${(error as Error).message}: a port was taken during the start. Try again, or set PORT / DYNAMODB_PORT.`);
  else if (error instanceof StartupError) console.error(error.message);
  else throw error;
  process.exit(1);
}
