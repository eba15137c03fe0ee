import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectTaggingCommand } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryStore, S3Store, type ObjectStore } from '../../shared/analytics/store/object-store';
import { startS3Server } from '../support/s3-server';

/*
 * One contract, two stores: a local directory and an S3 bucket through the real SDK client (a
 * local S3-compatible server). Whatever a writer stores, a reader gets back byte for byte.
 */
let s3: Awaited<ReturnType<typeof startS3Server>>;
const stores: Array<{ name: string; store: () => ObjectStore }> = [
  { name: 'a directory', store: () => new DirectoryStore(mkdtempSync(join(tmpdir(), 'objects-'))) },
  { name: 'an S3 bucket', store: () => new S3Store(async () => s3.client, s3.bucket, mkdtempSync(join(tmpdir(), 's3-cache-'))) },
];

beforeAll(async () => {
  s3 = await startS3Server();
});
const tagsOf = async (key: string) => (await s3.client.send(new GetObjectTaggingCommand({ Bucket: s3.bucket, Key: key }))).TagSet ?? [];
afterAll(async () => s3?.close());

describe.each(stores)('the analytics object store in $name', ({ name, store: makeStore }) => {
  it('gives back what was stored, lists it under its prefix, and forgets what is deleted', async () => {
    const store = makeStore();
    const key = 'events/pixel=px_1/date=2026-03-01/01J-abc.parquet';
    await store.put(key, new TextEncoder().encode('first'));
    await store.put('events/pixel=px_1/date=2026-03-02/other.parquet', new TextEncoder().encode('second'));
    await store.put('orders/pixel=px_1/date=2026-03-01/x.parquet', new TextEncoder().encode('third'));

    expect(new TextDecoder().decode(await store.get(key))).toBe('first');
    expect(await store.get('events/pixel=px_1/date=2026-03-01/missing.parquet')).toBeUndefined();
    expect((await store.list('events/pixel=px_1/')).map((object) => object.key).sort()).toEqual([key, 'events/pixel=px_1/date=2026-03-02/other.parquet']);
    expect(await store.list('events/pixel=px_2/')).toEqual([]);

    await store.delete([key, 'events/pixel=px_1/date=2026-03-01/never-stored.parquet']);
    expect(await store.get(key)).toBeUndefined();
    expect((await store.list('events/')).map((object) => object.key)).toEqual(['events/pixel=px_1/date=2026-03-02/other.parquet']);
  });

  it('stores a local file, and hands back a local path holding the object, for the engine to read', async () => {
    const store = makeStore();
    const local = join(mkdtempSync(join(tmpdir(), 'local-')), 'written.parquet');
    writeFileSync(local, 'parquet bytes');
    await store.putFile('events/pixel=px_1/date=2026-03-01/f.parquet', local);
    // The writer's temporary file is not left behind.
    expect(existsSync(local)).toBe(false);
    const path = await store.localPath('events/pixel=px_1/date=2026-03-01/f.parquet');
    expect(readFileSync(path, 'utf8')).toBe('parquet bytes');
    // Asked again, the same local file.
    expect(await store.localPath('events/pixel=px_1/date=2026-03-01/f.parquet')).toBe(path);
  });

  it('tells an object\'s size, and hands out local copies for one read that it removes afterwards', async () => {
    const store = makeStore();
    await store.put('events/pixel=px_1/date=2026-03-01/a.parquet', new TextEncoder().encode('four'));
    await store.put('events/pixel=px_1/date=2026-03-01/b.parquet', new TextEncoder().encode('sixsix'));
    expect(await store.size('events/pixel=px_1/date=2026-03-01/a.parquet')).toBe(4);
    expect(await store.size('events/pixel=px_1/date=2026-03-01/none.parquet')).toBeUndefined();
    let held: string[] = [];
    const texts = await store.withLocalFiles(['events/pixel=px_1/date=2026-03-01/b.parquet', 'events/pixel=px_1/date=2026-03-01/a.parquet'], async (paths) => {
      held = paths;
      return paths.map((path) => readFileSync(path, 'utf8'));
    });
    expect(texts).toEqual(['sixsix', 'four']);
    // A copy made for the read is gone; a directory's own files stay.
    for (const path of held) expect(existsSync(path)).toBe(name === 'a directory');
  });

  it('retires objects (a directory deletes them; a bucket tags them compacted=true for its lifecycle rule), and keeps one written again', async () => {
    const store = makeStore();
    const key = 'events/pixel=px_1/date=2026-03-01/old.parquet';
    await store.put(key, new TextEncoder().encode('old'));
    await store.retire([key, 'events/pixel=px_1/date=2026-03-01/never-stored.parquet']);
    if (name === 'a directory') expect(await store.get(key)).toBeUndefined();
    else expect(await tagsOf(key)).toEqual([{ Key: 'compacted', Value: 'true' }]);
    // Written again under the same key and kept: nothing marks it retired any more.
    await store.put(key, new TextEncoder().encode('new'));
    await store.keep([key]);
    expect(new TextDecoder().decode(await store.get(key))).toBe('new');
    if (name !== 'a directory') expect(await tagsOf(key)).toEqual([]);
  });

  it('round-trips any bytes under any valid key (property)', async () => {
    const store = makeStore();
    const segment = fc.stringMatching(/^[a-z0-9_=.-]{1,12}$/).filter((part) => part !== '.' && part !== '..');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.uint8Array({ maxLength: 4_096 }), async (parts, bytes) => {
        const key = `t/${parts.join('/')}.parquet`;
        await store.put(key, bytes);
        expect(Buffer.from((await store.get(key))!)).toEqual(Buffer.from(bytes));
      }),
      { numRuns: 25 },
    );
  });
});

describe('keys', () => {
  it('a directory store refuses a key that would leave its directory', async () => {
    const store = new DirectoryStore(mkdtempSync(join(tmpdir(), 'objects-')));
    await expect(store.put('../outside.parquet', new Uint8Array())).rejects.toThrow(/Invalid object key/);
    await expect(store.put('a//b.parquet', new Uint8Array())).rejects.toThrow(/Invalid object key/);
  });
});
