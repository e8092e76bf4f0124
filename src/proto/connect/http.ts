// Connect over HTTP/1.1 at the edge: reading unary and single-envelope request
// bodies, and answering with protobuf or with a Connect error before any stream.
import { AppError, httpStatus, retryAfterHeader } from "../../core/errors.ts";
import { errorToJsonBody } from "./end-stream.ts";
import { FLAG_COMPRESSED, FRAME_MAX_BYTES, HEADER_BYTES } from "./envelope.ts";
import { ByteQueue, gunzipLimited, limitedChunks } from "./bounded-body.ts";

/** Request bodies above this are refused before they are buffered, on the wire and once inflated (docs/protocol.md#limits). */
const REQUEST_MAX_BYTES = FRAME_MAX_BYTES;

const tooLarge = () => new AppError("resource_exhausted", `request body too large (over ${REQUEST_MAX_BYTES / 1024 / 1024} MiB)`);
const tooLargeInflated = () =>
  new AppError("resource_exhausted", `request body too large once decompressed (over ${REQUEST_MAX_BYTES / 1024 / 1024} MiB)`);

/**
 * The protobuf bytes of a unary request: bare `application/proto`, tolerating a
 * single Connect envelope and gzip, as Cursor's clients differ. The body is read
 * and inflated as it streams, and refused as soon as it passes the cap.
 */
export async function readUnaryBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > REQUEST_MAX_BYTES) throw tooLarge();
  const wire = limitedChunks(request.body, REQUEST_MAX_BYTES, tooLarge);
  let body = new ByteQueue(wire);
  try {
    if (/gzip/i.test(request.headers.get("content-encoding") ?? "")) {
      body = new ByteQueue(await gunzipLimited(wire, REQUEST_MAX_BYTES, tooLargeInflated));
    }
    const contentType = request.headers.get("content-type") ?? "";
    if (contentType.includes("connect+proto")) return await singleEnvelope(body, request.headers);
    return await body.rest();
  } finally {
    // Whatever was not read (an early refusal) is not sent any further.
    await wire.return();
  }
}

async function singleEnvelope(body: ByteQueue, headers: Headers): Promise<Uint8Array> {
  const header = await body.read(HEADER_BYTES);
  if (header.byteLength === 0) return header;
  if (header.byteLength < HEADER_BYTES) throw incomplete();
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  const flags = view.getUint8(0);
  const length = view.getUint32(1, false);
  // A request envelope is a message, compressed or not; any other flag is a body that is not an envelope.
  if ((flags & ~FLAG_COMPRESSED) !== 0) {
    throw new AppError("invalid_argument", `protocol error: not a request envelope (flags 0x${flags.toString(16).padStart(2, "0")})`);
  }
  // A length past what the body declares is a malformed envelope, not a large one.
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && !/gzip/i.test(headers.get("content-encoding") ?? "") && HEADER_BYTES + length > declared) {
    throw new AppError(
      "invalid_argument",
      `protocol error: incomplete envelope (it declares ${length} bytes, the body holds ${declared - HEADER_BYTES})`,
    );
  }
  if (length > REQUEST_MAX_BYTES) {
    throw new AppError("resource_exhausted", `protocol error: frame of ${length} bytes exceeds ${REQUEST_MAX_BYTES}`);
  }
  let data: Uint8Array;
  if (flags & FLAG_COMPRESSED) {
    if (!/gzip/i.test(headers.get("connect-content-encoding") ?? "")) {
      throw new AppError("unimplemented", "protocol error: unsupported message compression");
    }
    let taken = 0;
    const payload = counted(body.take(length), (n) => (taken += n));
    data = await gunzipLimited(payload, REQUEST_MAX_BYTES, tooLargeInflated);
    if (taken < length) throw incomplete();
  } else {
    data = await body.read(length);
    if (data.byteLength < length) throw incomplete();
  }
  if (!(await body.atEnd())) throw new AppError("invalid_argument", "protocol error: expected exactly one request message");
  return data;
}

/** Passes chunks through, telling `onBytes` their sizes (to notice a payload cut short). */
async function* counted(chunks: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of chunks) {
    onBytes(chunk.byteLength);
    yield chunk;
  }
}

function incomplete(): AppError {
  return new AppError("invalid_argument", "protocol error: incomplete envelope");
}

export function protoResponse(bytes: Uint8Array): Response {
  return new Response(bytes, {
    status: 200,
    headers: { "content-type": "application/proto", "content-length": String(bytes.byteLength) },
  });
}

/** A Connect error before any stream started: HTTP status + JSON error body. */
export function errorResponse(error: AppError): Response {
  return new Response(errorToJsonBody(error), {
    status: httpStatus(error),
    headers: { "content-type": "application/json", ...retryAfterHeader(error) },
  });
}

/**
 * The RunSSE response. Cursor expects binary Connect envelopes labelled
 * text/event-stream; a standard Connect peer that asks for
 * application/connect+proto (Accept) gets the standard label for the same bytes.
 */
export function streamResponse(body: ReadableStream<Uint8Array>, accept: string | null): Response {
  const contentType = accept?.includes("application/connect+proto") ? "application/connect+proto" : "text/event-stream";
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": contentType,
      "cache-control": "no-cache",
      "connect-protocol-version": "1",
    },
  });
}
