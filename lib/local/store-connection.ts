import { connect } from 'node:net';
import { ensureTable, startEmbeddedDynamo } from './dynamodb';
import { localConfig, useLocalServices } from './local-config';

/**
 * Connects an ops CLI to a store. With `--table` it is a deployed table, reached with the standard
 * AWS credential chain. Without it, the local store `npm start` uses: through the running
 * server's DynamoDB port, or, when no server runs, by opening the data directory directly.
 */
export async function connectStore(options: { table?: string }): Promise<{ close(): Promise<void>; description: string }> {
  if (options.table) {
    process.env.TABLE_NAME = options.table;
    return { close: async () => undefined, description: `table ${options.table}` };
  }
  const config = localConfig();
  if (await isListening(config.dynamoPort)) {
    useLocalServices(config, { dynamodb: `http://127.0.0.1:${config.dynamoPort}` });
    return { close: async () => undefined, description: `local store on port ${config.dynamoPort}` };
  }
  const dynamo = await startEmbeddedDynamo({ path: config.dynamoPath });
  await ensureTable(dynamo.endpoint, config.tableName);
  useLocalServices(config, { dynamodb: dynamo.endpoint });
  return { close: () => dynamo.close(), description: `local store in ${config.dynamoPath}` };
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
