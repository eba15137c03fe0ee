import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { mapWithConcurrency } from '../../map-with-concurrency';

/**
 * Where the analytics store keeps its Parquet files: an S3 bucket deployed, a directory locally.
 * Keys are relative paths with `/` separators (`events/pixel=px_1/date=2026-03-01/part.parquet`).
 * Objects are immutable in practice: a key names what it holds, so writing one again writes the
 * same bytes, and a reader may cache an object by its key for as long as it likes.
 */
export interface ObjectStore {
  /** Stores bytes under `key`, whole or not at all. */
  put(key: string, body: Uint8Array): Promise<void>;
  /** Stores a local file under `key` (DuckDB writes Parquet to a local file first). */
  putFile(key: string, path: string): Promise<void>;
  /** The object's bytes, or undefined when there is none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every key under `prefix`, with its last write time. */
  list(prefix: string): Promise<Array<{ key: string; lastModified: Date }>>;
  /** Removes the keys; keys that do not exist are no error. */
  delete(keys: readonly string[]): Promise<void>;
  /** A local file holding the object, for DuckDB to read: the file itself, or a cached download. */
  localPath(key: string): Promise<string>;
  /** The object's size in bytes, or undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  /**
   * Runs `work` with local files holding the objects, in `keys` order, and removes any copy made
   * for it afterwards: for a one-off read of many objects (compaction) that must not fill the
   * download cache `localPath` keeps.
   */
  withLocalFiles<T>(keys: readonly string[], work: (paths: string[]) => Promise<T>): Promise<T>;
  /**
   * Hands table files no reader can still hold to their removal: a directory deletes them; a
   * bucket tags them `compacted=true`, which its lifecycle rule expires (the functions that
   * compact hold no delete on table files). Keys that do not exist are no error.
   */
  retire(keys: readonly string[]): Promise<void>;
  /**
   * Makes sure objects just written are not marked retired from an earlier life of their key: a
   * bucket clears their tags (S3 gives an overwritten object only the tags of the new write, but
   * not every S3-compatible store does); a directory deleted what it retired, so has nothing to do.
   */
  keep(keys: readonly string[]): Promise<void>;
}

/** Waits for every promise, then throws the first failure if any. */
async function settleAll(work: Array<Promise<unknown>>): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The tag a bucket's lifecycle rule expires replaced files by (lib/constructs/analytics-store.ts). */
export const RETIRED_TAG = { Key: 'compacted', Value: 'true' } as const;

/**
 * A directory as the object store. A write goes to a temporary file first and is renamed into
 * place, so a reader never sees half an object, and a crash leaves either the old state or the new.
 */
export class DirectoryStore implements ObjectStore {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    if (key.split('/').some((part) => part === '..' || part === '')) throw new Error(`Invalid object key '${key}'`);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
    await writeFile(partial, body);
    await rename(partial, path);
  }

  async putFile(key: string, path: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    // The local file is the writer's own temporary one: moved into place when on the same volume.
    try {
      await rename(path, target);
    } catch {
      await this.put(key, await readFile(path));
      await rm(path, { force: true });
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<Array<{ key: string; lastModified: Date }>> {
    const start = join(this.root, ...prefix.split('/').slice(0, -1));
    const found: Array<{ key: string; lastModified: Date }> = [];
    const walk = async (directory: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(directory, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (!entry.name.endsWith('.partial')) {
          const key = relative(this.root, path).split(sep).join('/');
          if (key.startsWith(prefix)) found.push({ key, lastModified: (await stat(path)).mtime });
        }
      }
    };
    await walk(start);
    return found.sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  async delete(keys: readonly string[]): Promise<void> {
    // Every removal has ended when this returns, failed or not: a caller that gives up its claim
    // on the keys afterwards leaves nothing still removing behind it.
    await settleAll(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }

  async localPath(key: string): Promise<string> {
    return this.pathOf(key);
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async withLocalFiles<T>(keys: readonly string[], work: (paths: string[]) => Promise<T>): Promise<T> {
    return work(keys.map((key) => this.pathOf(key)));
  }

  async retire(keys: readonly string[]): Promise<void> {
    await this.delete(keys);
  }

  async keep(): Promise<void> {}
}

/**
 * An S3 bucket as the object store (the real SDK client; deployed, or against any S3-compatible
 * endpoint through `AWS_ENDPOINT_URL_S3`). DuckDB reads local files, so `localPath` downloads an
 * object once into a cache directory (in Lambda, `/tmp`) and keeps it: objects never change.
 */
export class S3Store implements ObjectStore {
  private readonly downloads = new Map<string, Promise<string>>();
  private client: Promise<S3Client> | undefined;

  constructor(
    private readonly createClient: () => Promise<S3Client>,
    readonly bucket: string,
    /** Where downloads are kept: per bucket, since a key is unique (and its object unchanging) only within its bucket. */
    private readonly cacheDir = join(tmpdir(), 'analytics-cache', bucket),
    /**
     * S3 gives an object written again only the tags of that write, so a file retired in an
     * earlier life of its key and written again is not expired. An S3-compatible store that keeps
     * them (the local test server does) needs them cleared after every write: one call more each.
     */
    private readonly clearTagsOnWrite = false,
  ) {}

  private async sdk() {
    return import('@aws-sdk/client-s3');
  }

  private send: S3Client['send'] = (async (command: Parameters<S3Client['send']>[0]) => {
    const client = await (this.client ??= this.createClient());
    return client.send(command as never);
  }) as S3Client['send'];

  async put(key: string, body: Uint8Array): Promise<void> {
    const { PutObjectCommand } = await this.sdk();
    await this.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body }));
    if (this.clearTagsOnWrite) await this.keep([key]);
  }

  async putFile(key: string, path: string): Promise<void> {
    await this.put(key, await readFile(path));
    await rm(path, { force: true });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const { GetObjectCommand, NoSuchKey } = await this.sdk();
    try {
      const { Body } = await this.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Body ? await Body.transformToByteArray() : new Uint8Array();
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<Array<{ key: string; lastModified: Date }>> {
    const { ListObjectsV2Command } = await this.sdk();
    const found: Array<{ key: string; lastModified: Date }> = [];
    let token: string | undefined;
    do {
      const page = await this.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) found.push({ key: object.Key, lastModified: object.LastModified ?? new Date(0) });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  async delete(keys: readonly string[]): Promise<void> {
    const { DeleteObjectsCommand } = await this.sdk();
    // DeleteObjects takes at most 1,000 keys a call.
    for (let start = 0; start < keys.length; start += 1_000) {
      const batch = keys.slice(start, start + 1_000);
      const { Errors = [] } = await this.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      if (Errors.length > 0) throw new Error(`Deleting ${Errors.length} object(s) failed: ${Errors[0]!.Code} ${Errors[0]!.Message}`);
    }
  }

  async size(key: string): Promise<number | undefined> {
    const { HeadObjectCommand } = await this.sdk();
    try {
      return (await this.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))).ContentLength ?? 0;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NotFound' || name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async withLocalFiles<T>(keys: readonly string[], work: (paths: string[]) => Promise<T>): Promise<T> {
    const directory = await mkdtemp(join(tmpdir(), 'analytics-read-'));
    try {
      // A few downloads at a time: each is held whole in memory until written out.
      const paths = await mapWithConcurrency([...keys.entries()], 8, async ([index, key]) => {
        // A download a reader already cached is used as it is; the others are this call's own.
        const cached = this.downloads.get(key);
        if (cached) return cached;
        const body = await this.get(key);
        if (!body) throw new Error(`The analytics store has no object '${key}'`);
        const path = join(directory, `${index}.parquet`);
        await writeFile(path, body);
        return path;
      });
      return await work(paths);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  async retire(keys: readonly string[]): Promise<void> {
    await this.tag(keys, [{ ...RETIRED_TAG }]);
  }

  async keep(keys: readonly string[]): Promise<void> {
    await this.tag(keys, []);
  }

  private async tag(keys: readonly string[], tags: Array<{ Key: string; Value: string }>): Promise<void> {
    const { PutObjectTaggingCommand } = await this.sdk();
    // One call per object (S3 has no batch tagging); a few at a time.
    for (let start = 0; start < keys.length; start += 16) {
      await settleAll(
        keys.slice(start, start + 16).map(async (key) => {
          try {
            await this.send(new PutObjectTaggingCommand({ Bucket: this.bucket, Key: key, Tagging: { TagSet: tags } }));
          } catch (error) {
            // Gone already (expired by the rule, or never written): nothing to mark.
            if ((error as { name?: string }).name !== 'NoSuchKey') throw error;
          }
        }),
      );
    }
  }

  localPath(key: string): Promise<string> {
    let download = this.downloads.get(key);
    if (!download) {
      download = this.download(key);
      // A failed download is tried again by the next reader.
      download.catch(() => this.downloads.delete(key));
      this.downloads.set(key, download);
    }
    return download;
  }

  private async download(key: string): Promise<string> {
    // Named by a digest of the key: flat, and safe whatever characters the key holds.
    const path = join(this.cacheDir, `${createHash('sha256').update(key).digest('hex')}.parquet`);
    try {
      await stat(path);
      return path;
    } catch {
      const body = await this.get(key);
      if (!body) throw new Error(`The analytics store has no object '${key}'`);
      await mkdir(this.cacheDir, { recursive: true });
      const partial = `${path}.${process.pid}.partial`;
      await writeFile(partial, body);
      await rename(partial, path);
      return path;
    }
  }
}
