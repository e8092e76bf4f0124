// Request bodies read under a byte cap while they stream: a chunked body (no
// Content-Length) or a gzip bomb is refused as soon as it passes the cap, and its
// source is cancelled, instead of being buffered or inflated whole first.
// Limits: docs/protocol.md#limits.
import { Gunzip } from "fflate";
import { AppError } from "../../core/errors.ts";
import { concatBytes } from "../../core/bytes.ts";

/** Gzip input is fed to the inflater this many bytes at a time: deflate's ~1032:1 ratio caps one step at ~1 MiB. */
const INFLATE_SLICE_BYTES = 1024;

/** The chunks of `body`, refusing with `tooLarge` once more than `maxBytes` went by; stopping early cancels the body. */
export async function* limitedChunks(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => AppError,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (!body) return;
  const reader = body.getReader();
  let total = 0;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      total += next.value.byteLength;
      if (total > maxBytes) throw tooLarge();
      yield next.value;
    }
  } finally {
    // Refused, or the consumer stopped early (a generator's return() runs this): stop the sender.
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/** Reads the whole of `body` if it stays within `maxBytes`. */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => AppError,
): Promise<Uint8Array> {
  const collected = new Collector(maxBytes, tooLarge);
  for await (const chunk of limitedChunks(body, maxBytes, tooLarge)) collected.push(chunk);
  return collected.bytes();
}

/**
 * Inflates gzip from `input`, at most `maxBytes` of output. The input goes to the inflater in
 * small slices and output is counted as it appears, so a bomb stops after about `maxBytes` of
 * output; stopping returns `input` early (for limitedChunks: the body is cancelled). fflate
 * inflates synchronously per slice; the runtime's DecompressionStream accepts input without
 * backpressure, so it could not say when to stop reading.
 */
export async function gunzipLimited(input: AsyncIterable<Uint8Array>, maxBytes: number, tooLarge: () => AppError): Promise<Uint8Array> {
  const output = new Collector(maxBytes, tooLarge);
  let over: AppError | undefined;
  const inflater = new Gunzip((chunk) => {
    if (over) return;
    try {
      output.push(chunk);
    } catch (err) {
      over = err as AppError;
    }
  });
  const push = (slice: Uint8Array, final: boolean) => {
    try {
      inflater.push(slice, final);
    } catch {
      throw new AppError("invalid_argument", "protocol error: body is not valid gzip");
    }
    if (over) throw over;
  };
  for await (const chunk of input) {
    for (let at = 0; at < chunk.byteLength; at += INFLATE_SLICE_BYTES) push(chunk.subarray(at, at + INFLATE_SLICE_BYTES), false);
  }
  push(new Uint8Array(0), true);
  return output.bytes();
}

/**
 * Reads a chunk stream by byte counts (an envelope's header, then its payload), without
 * gathering more than asked for. `close()` stops the stream underneath.
 */
export class ByteQueue {
  readonly #chunks: AsyncIterator<Uint8Array>;
  #head: Uint8Array = new Uint8Array(0);
  #ended = false;

  /** A stream of chunks, or bytes already in memory. */
  constructor(chunks: AsyncIterable<Uint8Array> | Uint8Array) {
    this.#chunks = (chunks instanceof Uint8Array ? once(chunks) : chunks)[Symbol.asyncIterator]();
  }

  /** Whether no byte is left. */
  async atEnd(): Promise<boolean> {
    return (await this.#fill()) === 0;
  }

  /** Everything left (the stream underneath is what bounds it). */
  rest(): Promise<Uint8Array> {
    return this.read(Number.POSITIVE_INFINITY);
  }

  /** The next `length` bytes, or fewer if the stream ends first. */
  async read(length: number): Promise<Uint8Array> {
    const collected = new Collector(length, () => new AppError("internal", "ByteQueue over-read"));
    for await (const chunk of this.take(length)) collected.push(chunk);
    return collected.bytes();
  }

  /** The next `length` bytes as they arrive (fewer if the stream ends first). */
  async *take(length: number): AsyncGenerator<Uint8Array, void, undefined> {
    let left = length;
    while (left > 0 && (await this.#fill()) > 0) {
      const piece = this.#head.subarray(0, left);
      this.#head = this.#head.subarray(piece.byteLength);
      left -= piece.byteLength;
      yield piece;
    }
  }

  async close(): Promise<void> {
    this.#ended = true;
    await this.#chunks.return?.();
  }

  /** Bytes at the head, pulling one more chunk when none are (0: the stream ended). */
  async #fill(): Promise<number> {
    while (this.#head.byteLength === 0 && !this.#ended) {
      const next = await this.#chunks.next();
      if (next.done) this.#ended = true;
      else this.#head = next.value;
    }
    return this.#head.byteLength;
  }
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array, void, undefined> {
  yield bytes;
}

/** Chunks gathered under a cap, joined once at the end. */
class Collector {
  readonly #parts: Uint8Array[] = [];
  #total = 0;

  constructor(
    readonly maxBytes: number,
    readonly tooLarge: () => AppError,
  ) {}

  push(chunk: Uint8Array): void {
    this.#total += chunk.byteLength;
    if (this.#total > this.maxBytes) throw this.tooLarge();
    this.#parts.push(chunk);
  }

  bytes(): Uint8Array {
    return this.#parts.length === 1 ? this.#parts[0]! : concatBytes(this.#parts);
  }
}
