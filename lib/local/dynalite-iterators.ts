import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';

/**
 * dynalite 4.0.0 ends each Query and Scan by destroying the stream it reads from, and that stream
 * closes its store iterator only through `iterator.return()`, a method abstract-level 3 iterators
 * do not have (theirs is `close()`). So every Query and Scan left an iterator open until the
 * store closed, each one holding a LevelDB snapshot with the memtables and table files it sees:
 * under a steady load of writes and queries the local server's native memory grew by hundreds of
 * megabytes a minute. Giving the iterators the `return` the stream calls closes them as dynalite
 * meant to. Applied once, when the local store module loads.
 */
export function closeDynaliteIteratorsOnReturn(): void {
  for (const iterator of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
    const prototype = iterator.prototype as unknown as { return?: unknown; close(): Promise<void> };
    if (typeof prototype.return === 'function') continue;
    Object.defineProperty(prototype, 'return', {
      configurable: true,
      writable: true,
      value: function (this: { close(): Promise<void> }) {
        return this.close();
      },
    });
  }
}
