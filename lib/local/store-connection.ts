import { connect } from 'node:net';
import { awaitExitingHolder, lockDataDir, lockHolder } from './data-dir-lock';
import { ensureTable, startEmbeddedDynamo } from './dynamodb';
import { StartupError, type Service } from './lifecycle';
import { localConfig, useLocalServices } from './local-config';

/**
 * Connects an ops CLI to a store. With `--table` it is a deployed table (and with `--bucket` its
 * analytics store's bucket), reached with the standard AWS credential chain. Without it, the
 * local store `npm start` uses (its analytics store in `$DATA_DIR/analytics`): through the running
 * server's DynamoDB port, or, when no server runs, by opening the data directory directly.
 */
export async function connectStore(options: { table?: string; bucket?: string }): Promise<{ close(): Promise<void>; description: string }> {
  if (options.table) {
    process.env.TABLE_NAME = options.table;
    if (options.bucket) process.env.ANALYTICS_BUCKET = options.bucket;
    return { close: async () => undefined, description: options.bucket ? `table ${options.table} and bucket ${options.bucket}` : `table ${options.table}` };
  }
  const config = localConfig();
  // The server holding the data directory says which port it serves it on, whatever DYNAMODB_PORT says here
  // (one killed a moment ago is let finish exiting first).
  await awaitExitingHolder(config.dataDir);
  const holder = lockHolder(config.dataDir);
  const serverPort = holder?.holder === 'server' ? holder.dynamoPort : (await isListening(config.dynamoPort)) ? config.dynamoPort : undefined;
  if (serverPort !== undefined) {
    useLocalServices(config, { dynamodb: `http://127.0.0.1:${serverPort}` });
    return { close: async () => undefined, description: `local store on port ${serverPort}` };
  }
  let lock: Service;
  try {
    lock = lockDataDir(config.dataDir, { holder: 'cli' });
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const dynamo = await startEmbeddedDynamo({ path: config.dynamoPath });
  await ensureTable(dynamo.endpoint, config.tableName);
  useLocalServices(config, { dynamodb: dynamo.endpoint });
  return {
    close: async () => {
      await dynamo.close();
      await lock.close();
    },
    description: `local store in ${config.dynamoPath}`,
  };
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
