import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { resetAnalyticsStore } from '../../shared/analytics/store/store-config';

/**
 * A local S3-compatible server (s3rver, files on disk) for the tests of the S3 side of the
 * analytics store: the real SDK client talks to it as to S3.
 */
export async function startS3Server(bucket = `analytics-test-${randomUUID().slice(0, 8)}`) {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    client,
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type S3Server = Awaited<ReturnType<typeof startS3Server>>;

let active: S3Server | undefined;

/**
 * Points this process's analytics store at a bucket of a fresh local S3-compatible server (the
 * real SDK client, as deployed); `useDirectoryAnalyticsStore` points it back and stops the server.
 */
export async function useS3AnalyticsStore(): Promise<S3Server> {
  await active?.close();
  active = await startS3Server();
  process.env.ANALYTICS_BUCKET = active.bucket;
  process.env.AWS_ENDPOINT_URL_S3 = active.endpoint;
  // The local S3 server knows one key pair; the local DynamoDB takes any.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  resetAnalyticsStore();
  return active;
}

/** Points this process's analytics store at its directory (the test's ANALYTICS_DIR), stopping any S3 server started for it. */
export async function useDirectoryAnalyticsStore(): Promise<void> {
  delete process.env.ANALYTICS_BUCKET;
  delete process.env.AWS_ENDPOINT_URL_S3;
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  resetAnalyticsStore();
  await active?.close();
  active = undefined;
}

/** The two stores a test of the analytics store runs on, for `describe.each`: `use` in a `beforeAll`. */
export const ANALYTICS_STORES = [
  { store: 'a directory', use: useDirectoryAnalyticsStore },
  { store: 'an S3 bucket', use: useS3AnalyticsStore },
] as const;
