// Connect over HTTP/1.1 at the edge: reading unary and single-envelope request
// bodies, and answering with protobuf or with a Connect error before any stream.
import { AppError, codeToHttpStatus } from "../proto/connect/error.ts";
import { errorToJsonBody } from "../proto/connect/end-stream.ts";
import { decodeEnvelopes, FLAG_COMPRESSED, FRAME_MAX_BYTES } from "../proto/connect/envelope.ts";

/** Request bodies above this are refused before they are buffered. */
const REQUEST_MAX_BYTES = FRAME_MAX_BYTES;

/**
 * The protobuf bytes of a unary request: bare `application/proto`, tolerating a
 * single Connect envelope and gzip, as Cursor's clients differ.
 */
export async function readUnaryBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > REQUEST_MAX_BYTES) throw new AppError("resource_exhausted", "request body too large");
  let body: Uint8Array = new Uint8Array(await request.arrayBuffer());
  if (body.byteLength > REQUEST_MAX_BYTES) throw new AppError("resource_exhausted", "request body too large");
  if (/gzip/i.test(request.headers.get("content-encoding") ?? "")) body = await gunzip(body);
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType.includes("connect+proto")) return singleEnvelope(body, request.headers);
  return body;
}

async function singleEnvelope(body: Uint8Array, headers: Headers): Promise<Uint8Array> {
  if (body.byteLength === 0) return body;
  let frames: ReturnType<typeof decodeEnvelopes>;
  try {
    frames = decodeEnvelopes(body);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("invalid_argument", "protocol error: malformed envelope");
  }
  const first = frames[0];
  if (frames.length !== 1 || !first) throw new AppError("invalid_argument", "protocol error: expected exactly one request message");
  if (first.flags & FLAG_COMPRESSED) {
    if (!/gzip/i.test(headers.get("connect-content-encoding") ?? "")) {
      throw new AppError("unimplemented", "protocol error: unsupported message compression");
    }
    return gunzip(first.data);
  }
  return first.data;
}

/** Inflates a gzip body, refusing output beyond the request limit (a zip bomb is tiny on the wire). */
async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > REQUEST_MAX_BYTES) throw new AppError("resource_exhausted", "request body too large once decompressed");
      parts.push(value);
    }
  } catch (err) {
    void reader.cancel().catch(() => undefined);
    if (err instanceof AppError) throw err;
    throw new AppError("invalid_argument", "protocol error: body is not valid gzip");
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
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
    status: codeToHttpStatus(error.code),
    headers: { "content-type": "application/json" },
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
