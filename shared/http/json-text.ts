import { GZIP_LEVEL, gzipInSlices, SLICE_BYTES, SlicedGzip } from './parallel-gzip';

/**
 * A response body already written as JSON text, held as the bytes it is sent as: a list of
 * slices of at most 1 MB. A large listing writes its text straight from its typed arrays
 * (building one object per point only for JSON.stringify to walk it again cost more time and
 * memory than the listing's own work: a page of 500 ads is 45,000 points), and the slices go to
 * gzip as they are (parallel-gzip.ts): the body never exists as one 15 MB string, nor as one
 * buffer, nor as a UTF-8 copy of either. `text` joins it for a client that takes it uncompressed.
 */
export class JsonText {
  private joined: string | undefined;

  constructor(
    readonly slices: readonly Buffer[],
    readonly byteLength: number,
    /** The body's gzip at GZIP_LEVEL, begun while it was written. */
    private readonly started?: SlicedGzip,
  ) {}

  get text(): string {
    this.joined ??= this.slices.length === 1 ? (this.slices[0] as Buffer).toString('utf8') : Buffer.concat(this.slices, this.byteLength).toString('utf8');
    return this.joined;
  }

  /** The body as one gzip member at GZIP_LEVEL: what was begun while it was written, when it was. */
  gzip(): Promise<Buffer> {
    return this.started ? this.started.finish() : gzipInSlices(this.slices, GZIP_LEVEL);
  }
}

/** An ASCII piece as the bytes `AsciiJsonWriter.pushBytes` copies. */
export function asciiBytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

/** A first slice this small keeps a short answer from reserving a whole slice. */
const FIRST_SLICE_BYTES = 64 * 1024;

/**
 * Builds a large ASCII JSON body piece by piece into slices outside the JS heap: each piece is
 * copied in and dropped at once, so a page's thousand series strings die young instead of all
 * surviving (and being promoted to the old generation) until a final join, and a full slice is
 * never copied again (a single growing buffer copied itself at every doubling, 24 MB at once for a
 * 15 MB page). Each full slice is handed to gzip at once, so on a 15 MB page compression runs on
 * the thread pool while the rest is written, instead of after it; only a body of one slice
 * (64 KB) waits until it is sent. Pieces must be ASCII (JSON.stringify output of ASCII data, or
 * text escaped to ASCII): they are copied byte per character.
 */
export class AsciiJsonWriter {
  private readonly slices: Buffer[] = [];
  private buffer = Buffer.allocUnsafe(FIRST_SLICE_BYTES);
  private length = 0;
  private total = 0;
  private gzip: SlicedGzip | undefined;

  push(...pieces: string[]): void {
    for (let piece of pieces) {
      for (;;) {
        const written = this.buffer.write(piece, this.length, 'latin1');
        this.length += written;
        if (written === piece.length) break;
        piece = piece.slice(written);
        this.endSlice();
        this.buffer = Buffer.allocUnsafe(SLICE_BYTES);
      }
    }
  }

  /**
   * Bytes of ASCII JSON, encoded once with `asciiBytes` (a member name, a point's opening written
   * thousands of times a page): copied in with no string to encode (the fastest copy of small pieces measured).
   */
  pushBytes(bytes: Uint8Array): void {
    if (bytes.length > SLICE_BYTES) {
      this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'));
      return;
    }
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /**
   * A number as JSON.stringify writes it (null for NaN and the infinities), its digits written
   * straight into the slice. Number-to-string was the largest cost of writing a page of series
   * (450,000 values), and each value's string was garbage.
   *
   * Fast path, for a value that is exactly the double nearest to some n × 10^-6 with |n| < 10^15
   * (every value rounded to six decimals, as the listing's are, below a billion): it is written as
   * the decimal n × 10^-6 without trailing zeros. That is the text Number#toString gives: it
   * picks the fewest significant digits whose decimal rounds to the value, and two different
   * decimals of at most 15 significant digits never round to the same double, so no shorter
   * decimal than n × 10^-6 (at most 15 digits) can; and from 10^-6 up to 10^21 it uses plain
   * notation. Any other value goes through String.
   */
  pushNumber(value: number): void {
    const n = Math.round(value * 1e6);
    // NaN and the infinities fail both tests.
    if (!(Math.abs(n) < 1e15 && n / 1e6 === value)) {
      this.push(Number.isFinite(value) ? String(value) : 'null');
      return;
    }
    // Sign, 9 digits, a point and 6 digits.
    this.reserve(17);
    const buffer = this.buffer;
    let at = this.length;
    let magnitude = n;
    if (magnitude < 0) {
      buffer[at++] = 45;
      magnitude = -magnitude;
    }
    // Below 10^9 and 10^6: both fit int32 arithmetic.
    let whole = Math.floor(magnitude / 1e6);
    let fraction = magnitude - whole * 1e6;
    let wholeDigits = 1;
    for (let rest = whole; rest >= 10; rest = (rest / 10) | 0) wholeDigits++;
    for (let i = at + wholeDigits - 1; i >= at; i--) {
      const next = (whole / 10) | 0;
      buffer[i] = 48 + whole - next * 10;
      whole = next;
    }
    at += wholeDigits;
    if (fraction > 0) {
      buffer[at++] = 46;
      let fractionDigits = 6;
      while (fraction % 10 === 0) {
        fraction /= 10;
        fractionDigits--;
      }
      for (let i = at + fractionDigits - 1; i >= at; i--) {
        const next = (fraction / 10) | 0;
        buffer[i] = 48 + fraction - next * 10;
        fraction = next;
      }
      at += fractionDigits;
    }
    this.length = at;
  }

  /** Room for `bytes` more in the current slice (at most SLICE_BYTES), starting a new one if needed. */
  private reserve(bytes: number): void {
    if (this.buffer.length - this.length >= bytes) return;
    if (this.length > 0) this.endSlice();
    this.buffer = Buffer.allocUnsafe(SLICE_BYTES);
  }

  private endSlice(): void {
    const slice = this.buffer.subarray(0, this.length);
    this.slices.push(slice);
    this.total += this.length;
    this.length = 0;
    (this.gzip ??= new SlicedGzip(GZIP_LEVEL)).add(slice);
  }

  finish(): JsonText {
    if (this.slices.length === 0) {
      const only = this.buffer.subarray(0, this.length);
      return new JsonText([only], only.length);
    }
    if (this.length > 0) this.endSlice();
    return new JsonText(this.slices, this.total, this.gzip);
  }
}
