import type * as Zlib from 'node:zlib';

/**
 * zlib, loaded by the first body compressed rather than at module load: this module is part of
 * every function's request pipeline, most responses are too small to compress, and loading zlib
 * is a measurable part of a cold start (about 2 ms; README, "Benchmarks").
 */
let zlib: typeof Zlib | undefined;
const loadZlib = (): typeof Zlib => (zlib ??= process.getBuiltinModule('node:zlib'));

function deflateRawAsync(input: Buffer, options: Zlib.ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => loadZlib().deflateRaw(input, options, (error, result) => (error ? reject(error) : resolve(result))));
}

/** Slices compressed apart: large enough that the back-references lost across a cut cost little. */
export const SLICE_BYTES = 1 << 20;

/**
 * The level a large body is gzipped at: on a 15 MB page of series it takes a third of the
 * default level's time for a third more bytes (compress-response.ts).
 */
export const GZIP_LEVEL = 1;

/** The fixed 10-byte gzip header: deflate, no name, no time stamp, unknown OS (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * One gzip member (RFC 1952) built from slices deflated apart on libuv's thread pool, as pigz
 * does: every slice ends with a sync flush (an empty stored block, so the next one starts on a
 * byte boundary), and an empty final block closes the stream, so the slices concatenate into one
 * valid deflate stream that any gzip reader inflates to the input. A slice is deflated as soon as
 * it is added: a body written slice by slice (json-text.ts) is compressed on the other cores while
 * the rest of it is still being written, and the event loop never waits for zlib.
 */
export class SlicedGzip {
  private crc = 0;
  private length = 0;
  private readonly deflated: Array<Promise<Buffer>> = [];

  constructor(private readonly level: number) {}

  add(input: Buffer): void {
    this.crc = loadZlib().crc32(input, this.crc);
    this.length += input.length;
    for (let start = 0; start < input.length; start += SLICE_BYTES) {
      const slice = deflateRawAsync(input.subarray(start, start + SLICE_BYTES), { level: this.level, finishFlush: loadZlib().constants.Z_SYNC_FLUSH });
      // Awaited in finish(); a body never sent compressed must not leave a rejection unhandled.
      slice.catch(() => undefined);
      this.deflated.push(slice);
    }
  }

  async finish(): Promise<Buffer> {
    const last = deflateRawAsync(Buffer.alloc(0), { level: this.level, finishFlush: loadZlib().constants.Z_FINISH });
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.length % 2 ** 32, 4);
    return Buffer.concat([GZIP_HEADER, ...(await Promise.all(this.deflated)), await last, trailer]);
  }
}

/** `input` (one buffer, or the slices of a body in order) as one gzip member, deflated in 1 MB slices. */
export async function gzipInSlices(input: Buffer | readonly Buffer[], level: number): Promise<Buffer> {
  const gzip = new SlicedGzip(level);
  for (const part of Buffer.isBuffer(input) ? [input] : input) gzip.add(part);
  return gzip.finish();
}
