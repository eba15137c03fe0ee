import { GetObjectTaggingCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe } from 'vitest';
import { compactionSuite } from '../support/compaction-suite';
import { useFreshTable } from '../support/fresh-table';
import { useDirectoryAnalyticsStore, useS3AnalyticsStore, type S3Server } from '../support/s3-server';

/*
 * Compaction of the analytics store, on both stores: a directory (local) and an S3 bucket through
 * the real SDK client (a local S3-compatible server, which supports object tagging as S3 does).
 */
let s3: S3Server | undefined;

beforeAll(async () => {
  await useFreshTable();
});
afterAll(useDirectoryAnalyticsStore);

describe('a directory', () => {
  // A directory deletes what it retires: nothing retired is left to tell apart.
  compactionSuite({ store: 'a directory', isRetired: async () => false });
});

describe('an S3 bucket', () => {
  beforeAll(async () => {
    s3 = await useS3AnalyticsStore();
  });
  // A bucket tags what it retires, for its lifecycle rule to expire. Fewer interleavings than on
  // a directory: what differs here is how files are retired, not how compactions interleave.
  compactionSuite({
    store: 'an S3 bucket',
    propertyRuns: 20,
    isRetired: async (key) => {
      const { TagSet = [] } = await s3!.client.send(new GetObjectTaggingCommand({ Bucket: s3!.bucket, Key: key }));
      return TagSet.some((tag) => tag.Key === 'compacted' && tag.Value === 'true');
    },
  });
});
