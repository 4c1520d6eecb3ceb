// Bounded capture of a process's stdout and stderr, for isolation modes: each stream kept up to its own limit and
// both together up to the combined one, each in a single allocation (never a list of chunks plus a copy of them).
import type { OutputLimits, ProcessEnd } from './isolation.js';

/** A quiet stream costs this much; a louder one gets one allocation of its whole limit. */
const FIRST_CAPACITY = 64 * 1024;

/** One stream's captured output, kept up to its limit. */
class OutputBuffer {
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

/** An output limit passed: how the process ended (its isolation mode stops it). */
export type OutputOverflow = Extract<ProcessEnd, { end: 'overflow' }>;

/**
 * The output of one process, bounded by its limits. An isolation mode feeds it every chunk the process writes; the
 * first chunk that passes a limit is kept up to the limit and reported, and the mode then stops the process.
 */
export class OutputCapture {
  readonly #limits: OutputLimits;
  readonly #kept: { stdout: OutputBuffer; stderr: OutputBuffer };
  #truncated = false;

  constructor(limits: OutputLimits) {
    this.#limits = limits;
    this.#kept = {
      stdout: new OutputBuffer(Math.min(limits.stdout, limits.combined)),
      stderr: new OutputBuffer(Math.min(limits.stderr, limits.combined)),
    };
  }

  /** True once a limit cut the output. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** Keeps what fits of `chunk`; returns the overflow when it did not all fit (nothing more is kept after that). */
  write(stream: 'stdout' | 'stderr', chunk: Buffer): OutputOverflow | undefined {
    if (this.#truncated) return undefined;
    const kept = this.#kept;
    const streamRoom = this.#limits[stream] - kept[stream].size;
    const combinedRoom = this.#limits.combined - (kept.stdout.size + kept.stderr.size);
    const room = Math.min(streamRoom, combinedRoom);
    kept[stream].append(chunk, Math.min(chunk.length, room));
    if (chunk.length <= room) return undefined;
    this.#truncated = true;
    return streamRoom <= combinedRoom ? { end: 'overflow', stream, limit: this.#limits[stream] } : { end: 'overflow', stream: 'combined', limit: this.#limits.combined };
  }

  /**
   * The bytes kept, handed over: the capture lets go of them, so once the caller is done with them nothing here keeps
   * up to a whole limit of memory alive (a process's listeners may outlive its result).
   */
  take(): { stdout: Buffer; stderr: Buffer; truncated: boolean } {
    return { stdout: this.#kept.stdout.take(), stderr: this.#kept.stderr.take(), truncated: this.#truncated };
  }
}
