// Response headers of a server stream, sent before its first message.
//
// A gRPC client learns that its server stream exists when the response headers
// arrive; Codex relies on it: it sends Execute only once its SubscribeToToolCalls
// has headers, and the host sends the first ToolCall only once a cell runs. But
// connect-es holds a response's headers until the first message (its handler
// awaits the first body chunk, "so that implementations have a chance to add
// headers", and connect-node reads a chunk before writeHead), and offers no way
// to flush them: a subscription would wait for a ToolCall that cannot come.
//
// So the node handler is wrapped: each request's context values carry a
// `commit` that writes the head now (status 200 is the only status of a gRPC,
// gRPC-web or Connect stream response) and turns connect-node's own later
// writeHead into a no-op. Messages and trailers then follow through connect-node
// as usual. Works for HTTP/2 (the bridge) and HTTP/1.1 servers alike.
import type { IncomingMessage, ServerResponse } from "node:http";
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

export interface EarlyHeaders {
  /** For connectNodeAdapter's `contextValues`. */
  contextValues(req: NodeRequest): ContextValues;
  /** Wraps connectNodeAdapter's handler, so that contextValues can reach the request's response. */
  wrap(handler: NodeHandler): NodeHandler;
}

export function earlyHeaders(): EarlyHeaders {
  const responses = new WeakMap<NodeRequest, NodeResponse>();
  return {
    contextValues(req) {
      const res = responses.get(req);
      return createContextValues().set(commitHeadersKey, res ? commitFor(res) : undefined);
    },
    wrap(handler) {
      return (req, res) => {
        responses.set(req, res);
        handler(req, res);
      };
    },
  };
}

function commitFor(res: NodeResponse): CommitHeaders {
  return (header) => {
    if (res.headersSent || res.writableEnded) return;
    const nodeHeaders: Record<string, string> = {};
    header.forEach((value, name) => {
      nodeHeaders[name] = value;
    });
    if ("stream" in res) res.writeHead(200, nodeHeaders);
    else res.writeHead(200, nodeHeaders);
    // HTTP/1.1 keeps the head until the first body write; HTTP/2's writeHead sends it at once.
    if ("flushHeaders" in res && typeof res.flushHeaders === "function") res.flushHeaders();
    // connect-node calls writeHead before the first message: the head is on the wire already.
    res.writeHead = (() => res) as unknown as typeof res.writeHead;
  };
}
