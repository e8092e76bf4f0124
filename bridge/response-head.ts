// When a response's head goes out, for a gRPC client that reads meaning into it.
//
// 1. A server stream's headers before its first message. A gRPC client learns
//    that its stream exists when the response headers arrive; Codex relies on it:
//    it sends Execute only once its SubscribeToToolCalls has headers, and the
//    host sends the first ToolCall only once a cell runs. But connect-es holds a
//    response's headers until the first message (its handler awaits the first
//    body chunk, "so that implementations have a chance to add headers", and
//    connect-node reads a chunk before writeHead) and has no way to flush them:
//    a subscription would wait for a ToolCall that cannot come. So each request's
//    context values carry a `commit` that writes the head now (200 is the only
//    status of a gRPC, gRPC-web or Connect stream) and turns connect-node's own
//    later writeHead into a no-op.
// 2. Trailers-only errors. connect-node always sends headers, then the status in
//    trailers, even when a call fails before its first message; a gRPC server
//    (Codex's host) answers such a call with one HEADERS frame that carries the
//    status, and gRPC clients report it before any "headers received". On HTTP/2
//    the head is therefore held until the first body write, and a response that
//    ends without one goes out trailers-only.
// 3. When a response is out, trailers and all: a CompleteToolCall's reply must
//    be, before the session's next stream messages go (completion-order.ts).
// Messages and trailers otherwise pass through connect-node as usual.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { type ContextValues, createContextKey, createContextValues } from "@connectrpc/connect";

type NodeRequest = IncomingMessage | Http2ServerRequest;
type NodeResponse = ServerResponse | Http2ServerResponse;
type NodeHandler = (req: NodeRequest, res: NodeResponse) => void;

/** Sends the response head with these headers now; later headers are not sent. Idempotent. */
export type CommitHeaders = (header: Headers) => void;

export const commitHeadersKey = createContextKey<CommitHeaders | undefined>(undefined, {
  description: "send the response headers before the first message",
});

/** Resolves once the response is out: its stream (HTTP/2) or its response (HTTP/1.1) closed, trailers and all. */
export const responseClosedKey = createContextKey<Promise<void> | undefined>(undefined, {
  description: "the response is out",
});

export interface ResponseHead {
  /** For connectNodeAdapter's `contextValues`. */
  contextValues(req: NodeRequest): ContextValues;
  /** Wraps connectNodeAdapter's handler, so that contextValues can reach the request's response. */
  wrap(handler: NodeHandler): NodeHandler;
}

export function responseHead(): ResponseHead {
  const responses = new WeakMap<NodeRequest, NodeResponse>();
  return {
    contextValues(req) {
      const res = responses.get(req);
      return createContextValues()
        .set(commitHeadersKey, res ? commitFor(res) : undefined)
        .set(responseClosedKey, res ? closed(res) : undefined);
    },
    wrap(handler) {
      return (req, res) => {
        responses.set(req, res);
        if ("stream" in res) holdHead(res);
        handler(req, res);
      };
    },
  };
}

function closed(res: NodeResponse): Promise<void> {
  const emitter = "stream" in res ? res.stream : res;
  return new Promise((resolve) => emitter.once("close", () => resolve()));
}

function commitFor(res: NodeResponse): CommitHeaders {
  return (header) => {
    if (res.headersSent || res.writableEnded) return;
    const nodeHeaders: OutgoingHttpHeaders = {};
    header.forEach((value, name) => {
      nodeHeaders[name] = value;
    });
    const writeHead = realWriteHead.get(res) ?? res.writeHead.bind(res);
    writeHead(200, nodeHeaders);
    // HTTP/1.1 keeps the head until the first body write; HTTP/2's writeHead sends it at once.
    if ("flushHeaders" in res && typeof res.flushHeaders === "function") res.flushHeaders();
    // connect-node calls writeHead before the first message: the head is on the wire already.
    res.writeHead = (() => res) as unknown as typeof res.writeHead;
  };
}

const realWriteHead = new WeakMap<NodeResponse, (status: number, headers: OutgoingHttpHeaders) => void>();

/** Holds connect-node's writeHead until the first write; an end without one sends the trailers in the head. */
function holdHead(res: Http2ServerResponse): void {
  const ownWriteHead = res.writeHead;
  const writeHead = ownWriteHead.bind(res) as (status: number, headers: OutgoingHttpHeaders) => void;
  const { write, end, addTrailers } = { write: res.write.bind(res), end: res.end.bind(res), addTrailers: res.addTrailers.bind(res) };
  realWriteHead.set(res, writeHead);
  let held: { status: number; headers: OutgoingHttpHeaders } | undefined;
  let trailers: OutgoingHttpHeaders = {};
  const release = () => {
    if (!held) return;
    const head = held;
    held = undefined;
    writeHead(head.status, head.headers);
    addTrailers(trailers);
  };
  res.writeHead = ((status: number, headers: OutgoingHttpHeaders = {}) => {
    held = { status, headers };
    return res;
  }) as unknown as typeof res.writeHead;
  res.addTrailers = (more: OutgoingHttpHeaders) => {
    if (held) trailers = { ...trailers, ...more };
    else addTrailers(more);
  };
  res.write = ((...args: Parameters<typeof res.write>) => {
    release();
    return write(...args);
  }) as typeof res.write;
  res.end = ((...args: Parameters<typeof res.end>) => {
    if (held) {
      // No body: one HEADERS frame with END_STREAM, the status in it (trailers-only).
      res.statusCode = held.status;
      for (const [name, value] of Object.entries({ ...held.headers, ...trailers })) {
        if (value !== undefined) res.setHeader(name, value);
      }
      held = undefined;
      res.writeHead = ownWriteHead; // Node's end() writes the head through it
    }
    return end(...args);
  }) as typeof res.end;
}
