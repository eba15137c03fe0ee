import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { spawnLocalServer, type SpawnedServer } from '../../lib/local/spawned-server';
import { assertDocumentedResponse } from './openapi-responses';

const run = promisify(execFile);

export type RunningServer = SpawnedServer;

/** The local server for one test file: `npm start`'s program, in its own process and data directory. */
export const startLocalServer = (options: { dataDir?: string } = {}): Promise<RunningServer> => spawnLocalServer(options);

/** Runs one of the ops CLIs in bin/ against the server's store, as an operator would, whatever its exit code. */
export function runCli(server: RunningServer, script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { env: server.env }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs the keys CLI against the server's store, as an operator would. */
export async function keysCli(server: RunningServer, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], { env: server.env });
  return stdout;
}

export async function mintKey(server: RunningServer, pixelId: string, scopes: string, ...extra: string[]) {
  const stdout = await keysCli(server, 'create', '--pixel', pixelId, '--scopes', scopes, '--json', ...extra);
  return JSON.parse(stdout.trim()) as { apiKey: string; apiKeyPk: string; pixelId: string; scopes: string[] };
}

export function eventLines(server: RunningServer): Array<Record<string, any>> {
  try {
    return readFileSync(join(server.dataDir, 'events.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

export async function call(server: RunningServer, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  // Every answer the suite receives is also held to the OpenAPI document.
  assertDocumentedResponse(method, path, response.status, response.headers.get('content-type'), body);
  return { status: response.status, headers: response.headers, body };
}

/**
 * Waits until the server's pipeline has nothing pending (its drain projected every accepted
 * request and published every outbox), polling the pending index of its store. Bounded: throws
 * after `timeoutMs`, so a stuck pipeline fails the test instead of hanging it.
 */
export async function pipelineDrained(server: RunningServer, timeoutMs = 15_000): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${server.env.DYNAMODB_PORT}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pending = await client.send(
        new ScanCommand({
          TableName: 'merchant-analytics-local',
          IndexName: 'GSI2',
          FilterExpression: 'begins_with(GSI2PK, :pending)',
          ExpressionAttributeValues: { ':pending': { S: 'PENDING#' } },
          Select: 'COUNT',
        }),
      );
      if ((pending.Count ?? 0) === 0) return;
      if (Date.now() > deadline) throw new Error(`${pending.Count} item(s) still pending after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.destroy();
  }
}
