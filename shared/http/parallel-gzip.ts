import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';
import { SLICE_BYTES } from './json-text';

const deflateRawAsync = promisify<Buffer, ZlibOptions, Buffer>(deflateRaw);

/** The fixed 10-byte gzip header: deflate, no name, no time stamp, unknown OS (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * One gzip member (RFC 1952) of `input` (one buffer, or the slices of a body in order), deflated
 * in slices of at most 1 MB (large enough that the back-references lost across a cut cost little)
 * on libuv's thread pool, as pigz does: every slice but the last ends with a sync flush (an empty
 * stored block, so the next slice starts on a byte boundary) and the last one with the final
 * block, so the slices concatenate into one valid deflate stream. The event loop stays free while
 * the slices are compressed, on as many cores as the machine gives; any gzip reader inflates the
 * result to the input.
 */
export async function gzipInSlices(input: Buffer | readonly Buffer[], level: number): Promise<Buffer> {
  const slices: Buffer[] = [];
  let crc = 0;
  let length = 0;
  for (const part of Buffer.isBuffer(input) ? [input] : input) {
    crc = crc32(part, crc);
    length += part.length;
    for (let start = 0; start < part.length; start += SLICE_BYTES) slices.push(part.subarray(start, start + SLICE_BYTES));
  }
  if (slices.length === 0) slices.push(Buffer.alloc(0));
  const deflated = await Promise.all(
    slices.map((slice, i) => deflateRawAsync(slice, { level, finishFlush: i === slices.length - 1 ? constants.Z_FINISH : constants.Z_SYNC_FLUSH })),
  );
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([GZIP_HEADER, ...deflated, trailer]);
}
