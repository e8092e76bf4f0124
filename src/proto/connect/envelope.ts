// Connect envelopes: 1 flag byte + 4-byte big-endian length + payload. The
// decoder is incremental because HTTP chunks split and join frames freely.
import { AppError } from "../../core/errors.ts";
import { concatBytes } from "../../core/bytes.ts";

export const FLAG_MESSAGE = 0b0000_0000;
export const FLAG_COMPRESSED = 0b0000_0001;
export const FLAG_END_STREAM = 0b0000_0010;

/** Largest frame we accept; Cursor's messages (blobs, tool results) stay far below. */
export const FRAME_MAX_BYTES = 32 * 1024 * 1024;

/** flags (1 byte) + big-endian length (4 bytes). */
export const HEADER_BYTES = 5;

/** @internal A decoded frame (exported for the fuzz properties). */
export interface Envelope {
  flags: number;
  data: Uint8Array;
}

export function encodeEnvelope(flags: number, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + data.byteLength);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, data.byteLength, false);
  out.set(data, HEADER_BYTES);
  return out;
}

/**
 * Buffers partial chunks and yields every complete envelope, in order.
 * @internal Exported for the clients that read a RunSSE body as it arrives (the
 * test client, the bench); the worker reads its one-envelope request bodies as they
 * stream (src/proto/connect/http.ts).
 */
export class EnvelopeDecoder {
  /** Chunks not yet decoded, in order; joined once per frame, so a large frame split into many chunks costs linear time. */
  #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(readonly maxBytes: number = FRAME_MAX_BYTES) {}

  push(chunk: Uint8Array): Envelope[] {
    if (chunk.byteLength > 0) {
      this.#chunks.push(chunk);
      this.#size += chunk.byteLength;
    }
    const frames: Envelope[] = [];
    for (;;) {
      if (this.#size < HEADER_BYTES) return frames;
      const head = this.#head();
      const view = new DataView(head.buffer, head.byteOffset, HEADER_BYTES);
      const length = view.getUint32(1, false);
      if (length > this.maxBytes) {
        throw new AppError("resource_exhausted", `protocol error: frame of ${length} bytes exceeds ${this.maxBytes}`);
      }
      if (this.#size < HEADER_BYTES + length) return frames;
      const flags = view.getUint8(0);
      const frame = this.#take(HEADER_BYTES + length);
      frames.push({ flags, data: frame.slice(HEADER_BYTES) });
    }
  }

  /** The first chunk, joined with the next ones until it holds a whole header. */
  #head(): Uint8Array {
    while (this.#chunks[0]!.byteLength < HEADER_BYTES) {
      const [first, second] = this.#chunks.splice(0, 2);
      this.#chunks.unshift(concatBytes([first!, second!]));
    }
    return this.#chunks[0]!;
  }

  /** Removes and returns the first `n` buffered bytes (the caller checked there are that many). */
  #take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const chunk = this.#chunks[0]!;
      const used = Math.min(chunk.byteLength, n - at);
      out.set(chunk.subarray(0, used), at);
      at += used;
      if (used === chunk.byteLength) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(used);
    }
    this.#size -= n;
    return out;
  }

  /** Call at end of input: leftover bytes mean the peer cut a frame. */
  finish(): void {
    if (this.#size > 0) {
      throw new AppError("invalid_argument", "protocol error: incomplete envelope");
    }
  }
}

/** @internal Decodes a whole buffer of envelopes (the framing tests). */
export function decodeEnvelopes(bytes: Uint8Array): Envelope[] {
  const decoder = new EnvelopeDecoder();
  const frames = decoder.push(bytes);
  decoder.finish();
  return frames;
}

/**
 * Follows frame boundaries in a byte stream without copying payloads, to tell
 * whether the end-stream frame has gone by (the edge relays frames unchanged).
 */
export class EndStreamWatcher {
  #header = new Uint8Array(HEADER_BYTES);
  #headerLength = 0;
  #payloadLeft = 0;
  #seen = false;

  get seen(): boolean {
    return this.#seen;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.byteLength) {
      if (this.#payloadLeft > 0) {
        const take = Math.min(this.#payloadLeft, chunk.byteLength - i);
        this.#payloadLeft -= take;
        i += take;
        continue;
      }
      this.#header[this.#headerLength++] = chunk[i++]!;
      if (this.#headerLength < HEADER_BYTES) continue;
      this.#headerLength = 0;
      if (this.#header[0]! & FLAG_END_STREAM) this.#seen = true;
      this.#payloadLeft = new DataView(this.#header.buffer).getUint32(1, false);
    }
  }
}
