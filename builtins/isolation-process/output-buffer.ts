// One stream's captured output, kept up to its limit in a single allocation: never a list of chunks plus a
// concatenated copy of them.

/** A quiet stream costs this much; a louder one gets one allocation of its whole limit. */
const FIRST_CAPACITY = 64 * 1024;

export class OutputBuffer {
  #buffer: Buffer | undefined;
  #size = 0;

  /** `limit` is the most this stream can ever keep. */
  constructor(readonly limit: number) {}

  get size(): number {
    return this.#size;
  }

  /** Keeps the first `count` bytes of `chunk` (the caller has checked they fit the limit). */
  append(chunk: Buffer, count = chunk.length): void {
    if (count <= 0) return;
    const needed = this.#size + count;
    if (needed > this.limit) throw new RangeError(`output buffer of ${this.limit} bytes cannot take ${needed}`);
    if (!this.#buffer || needed > this.#buffer.length) this.#grow(needed);
    chunk.copy(this.#buffer!, this.#size, 0, count);
    this.#size = needed;
  }

  /** The bytes kept so far, without copying them. */
  bytes(): Buffer {
    return this.#buffer ? this.#buffer.subarray(0, this.#size) : Buffer.alloc(0);
  }

  /**
   * The bytes kept, handed over: the buffer lets go of them, so once the caller is done with them nothing here keeps
   * up to a whole limit of memory alive (the process's listeners may outlive the result).
   */
  take(): Buffer {
    const bytes = this.bytes();
    this.#buffer = undefined;
    this.#size = 0;
    return bytes;
  }

  #grow(needed: number): void {
    // At most two steps: 64 KiB, then the whole limit. The pages of the big allocation that are never written are
    // never touched, so a flood that stops early does not pay for the rest of its limit in resident memory.
    const capacity = needed <= FIRST_CAPACITY ? Math.min(FIRST_CAPACITY, this.limit) : this.limit;
    const next = Buffer.allocUnsafeSlow(capacity);
    if (this.#buffer) this.#buffer.copy(next, 0, 0, this.#size);
    this.#buffer = next;
  }
}
