/**
 * A response body already written as JSON text. A large listing writes its text straight from
 * its typed arrays: building one object per point only for JSON.stringify to walk it again cost
 * more time and memory than the listing's own work (a page of 500 ads is 45,000 points).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * Builds a large ASCII JSON body piece by piece into one growing buffer, outside the JS heap: each
 * piece is copied in and dropped at once, so a page's thousand series strings die young instead
 * of all surviving (and being promoted to the old generation) until a final join. Pieces must be
 * ASCII (JSON.stringify output of ASCII data, or text escaped to ASCII): they are copied byte per
 * character.
 */
export class AsciiJsonWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024);
  private length = 0;

  push(...pieces: string[]): void {
    for (const piece of pieces) {
      if (this.length + piece.length > this.buffer.length) {
        const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + piece.length));
        this.buffer.copy(grown, 0, 0, this.length);
        this.buffer = grown;
      }
      this.length += this.buffer.write(piece, this.length, 'latin1');
    }
  }

  finish(): JsonText {
    return new JsonText(this.buffer.toString('latin1', 0, this.length));
  }
}
