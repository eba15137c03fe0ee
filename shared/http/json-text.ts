/**
 * A response body already written as JSON text, held as the bytes it is sent as: a list of
 * slices of at most SLICE_BYTES. A large listing writes its text straight from its typed arrays
 * (building one object per point only for JSON.stringify to walk it again cost more time and
 * memory than the listing's own work: a page of 500 ads is 45,000 points), and the slices go to
 * gzip as they are (http/parallel-gzip.ts): the body never exists as one 15 MB string, nor as one
 * buffer, nor as a UTF-8 copy of either. `text` joins it for a client that takes it uncompressed.
 */
export class JsonText {
  private joined: string | undefined;

  constructor(
    readonly slices: readonly Buffer[],
    readonly byteLength: number,
  ) {}

  static of(text: string): JsonText {
    const bytes = Buffer.from(text, 'utf8');
    return new JsonText([bytes], bytes.length);
  }

  get text(): string {
    this.joined ??= this.slices.length === 1 ? (this.slices[0] as Buffer).toString('utf8') : Buffer.concat(this.slices, this.byteLength).toString('utf8');
    return this.joined;
  }
}

/** What gzip deflates apart (parallel-gzip.ts) and what a writer fills before starting a new slice. */
export const SLICE_BYTES = 1 << 20;
/** A first slice this small keeps a short answer from reserving a whole slice. */
const FIRST_SLICE_BYTES = 64 * 1024;

/**
 * Builds a large ASCII JSON body piece by piece into slices outside the JS heap: each piece is
 * copied in and dropped at once, so a page's thousand series strings die young instead of all
 * surviving (and being promoted to the old generation) until a final join, and a full slice is
 * never copied again (a single growing buffer copied itself at every doubling, 24 MB at once for a
 * 15 MB page). Pieces must be ASCII (JSON.stringify output of ASCII data, or text escaped to
 * ASCII): they are copied byte per character.
 */
export class AsciiJsonWriter {
  private readonly slices: Buffer[] = [];
  private buffer = Buffer.allocUnsafe(FIRST_SLICE_BYTES);
  private length = 0;
  private total = 0;

  push(...pieces: string[]): void {
    for (let piece of pieces) {
      for (;;) {
        const written = this.buffer.write(piece, this.length, 'latin1');
        this.length += written;
        if (written === piece.length) break;
        piece = piece.slice(written);
        this.startSlice();
      }
    }
  }

  private startSlice(): void {
    this.slices.push(this.buffer.subarray(0, this.length));
    this.total += this.length;
    this.buffer = Buffer.allocUnsafe(SLICE_BYTES);
    this.length = 0;
  }

  finish(): JsonText {
    if (this.length > 0 || this.slices.length === 0) this.slices.push(this.buffer.subarray(0, this.length));
    return new JsonText(this.slices, this.total + this.length);
  }
}
