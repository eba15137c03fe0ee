import { mkdirSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ResourceInUseException, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createTableInput } from '../../shared/store/table-design';
import { closeDynaliteIteratorsOnReturn } from './dynalite-iterators';
import { cacheDynaliteTableDescriptions } from './dynalite-table-cache';
import { addDynaliteTransactions, handleTransactWrite, lastDynaliteStore } from './dynalite-transactions';

closeDynaliteIteratorsOnReturn();
cacheDynaliteTableDescriptions();
addDynaliteTransactions();

export interface EmbeddedDynamo {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts dynalite in this process: persisted under `path` (LevelDB), or in memory without one.
 * It speaks the real DynamoDB wire protocol, so the real SDK talks to it unchanged.
 */
export async function startEmbeddedDynamo(options: { path?: string; port?: number } = {}): Promise<EmbeddedDynamo> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const store = lastDynaliteStore();
  surviveAbortedRequests(server, (request, response) => handleTransactWrite(store, request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // SDK clients keep connections alive; without this, close waits for them forever.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * dynalite rethrows a request stream's error (`req.on('error', err => { throw err })`), so one
 * client that disconnects mid-upload (an SDK call aborted by a handler's timeout, say) would take
 * the whole process down. Swap that listener for one that only drops the connection. A request
 * `answeredHere` takes (TransactWriteItems) never reaches dynalite.
 */
function surviveAbortedRequests(server: Server, answeredHere: (request: IncomingMessage, response: ServerResponse) => boolean): void {
  const handlers = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!answeredHere(request, response)) for (const handle of handlers) handle(request, response);
    request.removeAllListeners('error');
    request.on('error', () => response.destroy());
    response.on('error', () => undefined);
  });
}

/** Creates the service table if it is missing. Returns true when it had to be created. */
export async function ensureTable(endpoint: string, tableName: string): Promise<boolean> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.5 }, { TableName: tableName });
    return true;
  } catch (error) {
    if (error instanceof ResourceInUseException) return false;
    throw error;
  } finally {
    client.destroy();
  }
}

/** Emulators accept any credentials; fixed ones keep a developer's real profile out of the picture. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
