import { DirectoryStore, S3Store, type ObjectStore } from './object-store';

/**
 * The analytics store this process uses, from the environment (the only seam between deployed
 * and local): `ANALYTICS_BUCKET` names the S3 bucket (the endpoint may be set with the standard
 * `AWS_ENDPOINT_URL_S3`), else `ANALYTICS_DIR` names a local directory.
 */
let store: ObjectStore | undefined;

export function analyticsStore(): ObjectStore {
  if (store) return store;
  const bucket = process.env.ANALYTICS_BUCKET;
  if (bucket) {
    // Built with the first call that needs it: a function that never reads analytics never loads the S3 client.
    const client = async () => new (await import('@aws-sdk/client-s3')).S3Client({ forcePathStyle: process.env.AWS_ENDPOINT_URL_S3 !== undefined });
    // Only S3 itself is known to drop an object's tags when it is written again (object-store.ts).
    return (store = new S3Store(client, bucket, undefined, process.env.AWS_ENDPOINT_URL_S3 !== undefined));
  }
  const directory = process.env.ANALYTICS_DIR;
  if (!directory) throw new Error('Environment variable ANALYTICS_BUCKET or ANALYTICS_DIR is required but neither is set');
  return (store = new DirectoryStore(directory));
}

/** Forgets the store built from the environment (tests that change it). */
export function resetAnalyticsStore(): void {
  store = undefined;
}
