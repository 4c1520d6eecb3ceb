// The engines' attach stream without a TTY: frames of an 8-byte header (stream type, three zero bytes, payload size
// as a big-endian uint32) and the payload. Split here, without buffering payloads: each slice goes straight on.

export type Stream = 'stdout' | 'stderr';

const HEADER_BYTES = 8;

/** Splits attach frames; holds at most one partial header, never a payload. */
export class Demultiplexer {
  readonly #header = Buffer.alloc(HEADER_BYTES);
  #headerBytes = 0;
  #remaining = 0;
  #stream: Stream = 'stdout';

  /** `deliver` gets each payload slice (a view of `chunk`, not a copy) with its stream. */
  constructor(private readonly deliver: (stream: Stream, bytes: Buffer) => void) {}

  write(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#remaining > 0) {
        const take = Math.min(this.#remaining, chunk.length - offset);
        this.#remaining -= take;
        this.deliver(this.#stream, chunk.subarray(offset, offset + take));
        offset += take;
        continue;
      }
      const take = Math.min(HEADER_BYTES - this.#headerBytes, chunk.length - offset);
      chunk.copy(this.#header, this.#headerBytes, offset, offset + take);
      this.#headerBytes += take;
      offset += take;
      if (this.#headerBytes < HEADER_BYTES) break;
      this.#headerBytes = 0;
      // 1 stdout, 2 stderr; 3 is the engine's own error text about the stream, kept with stderr; 0 (stdin) never comes.
      this.#stream = this.#header[0] === 2 || this.#header[0] === 3 ? 'stderr' : 'stdout';
      this.#remaining = this.#header.readUInt32BE(4);
    }
  }
}
