// One forwarding implementation per method of a service: each call the bridge
// receives becomes the same call on the upstream transport, with
//  - the call's signal (the client went away, or its deadline passed) and its
//    remaining deadline, so a dropped client stream drops the upstream one and
//    the upstream sees the client's deadline;
//  - application metadata both ways and the bridge's bearer token (metadata.ts);
//  - for a server stream, the response headers sent as soon as the upstream's
//    arrive, before any message (response-head.ts);
//  - upstream errors rethrown with their code, message, details and metadata;
//  - on OpenSession, SubscribeToToolCalls and Execute, byok-edge's heartbeats asked
//    for and dropped on the way back: the upstream then notices at once a client
//    that left an idle stream, and the client never sees one (docs/code-mode.md#leases);
//  - a Wait whose client went away retired upstream with a CancelWait of its id:
//    byok-edge cannot see a client leave a pending unary call (docs/code-mode.md#grpc-bridge);
//  - a CompleteToolCall's reply out before the session's stream messages that arrive
//    while it is in flight (completion-order.ts).
// Messages are decoded and re-encoded with the same schema; unknown fields (a
// newer client's) are kept by protobuf-es and reach the upstream unchanged.
import type { DescMessage, DescMethodServerStreaming, DescMethodUnary, DescService, MessageShape } from "@bufbuild/protobuf";
import { type ConnectRouter, ConnectError, type HandlerContext, type Transport } from "@connectrpc/connect";
import { HEARTBEAT_HEADER, HEARTBEAT_METHODS, isHeartbeat } from "../src/code-mode/host/lease.ts";
import {
  CodeModeHost,
  type CompleteToolCallRequest,
  type ExecuteEvent,
  type SessionEvent,
  type ToolCall,
  type WaitRequest,
} from "../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { CompletionOrder } from "./completion-order.ts";
import { commitHeadersKey, responseClosedKey } from "./response-head.ts";
import { copyUpstreamMetadata, upstreamRequestHeader } from "./metadata.ts";

export interface Upstream {
  transport: Transport;
  token: string | undefined;
  /** Called once per forwarded call, before it goes upstream (logging, tests). */
  onCall?: (method: string) => void;
}

export function registerForwarding(router: ConnectRouter, service: DescService, upstream: Upstream): void {
  const order = new CompletionOrder();
  for (const method of service.methods) {
    switch (method.methodKind) {
      case "unary": {
        const unary = method as DescMethodUnary; // DescMethod does not narrow on methodKind
        router.rpc(unary, forwardUnary(unary, upstream, order));
        break;
      }
      case "server_streaming": {
        const stream = method as DescMethodServerStreaming;
        router.rpc(stream, forwardServerStream(stream, upstream, order));
        break;
      }
      default:
        // Workers serve unary and server streams only (HTTP/1.1); CodeModeHost has no other kind.
        throw new Error(`the bridge cannot forward ${method.methodKind} method ${method.parent.typeName}/${method.name}`);
    }
  }
}

function forwardUnary(method: DescMethodUnary, upstream: Upstream, order: CompletionOrder) {
  return async (request: MessageShape<DescMessage>, ctx: HandlerContext) => {
    upstream.onCall?.(method.name);
    const handled = Promise.withResolvers<void>();
    if (method === CodeModeHost.method.completeToolCall) {
      const sessionId = (request as CompleteToolCallRequest).sessionId.toLowerCase();
      order.track(sessionId, ctx.values.get(responseClosedKey) ?? handled.promise);
    }
    const gone = method === CodeModeHost.method.wait ? () => cancelWait(request as WaitRequest, ctx, upstream) : undefined;
    if (gone) ctx.signal.addEventListener("abort", gone, { once: true });
    try {
      const response = await upstream.transport.unary(method, ctx.signal, ctx.timeoutMs(), header(ctx, upstream), request);
      copyUpstreamMetadata(response.header, ctx.responseHeader);
      copyUpstreamMetadata(response.trailer, ctx.responseTrailer);
      return response.message;
    } catch (error) {
      throw asClientError(error);
    } finally {
      handled.resolve();
      if (gone) ctx.signal.removeEventListener("abort", gone);
    }
  };
}

/** How long the CancelWait for a dropped Wait may take; nobody waits for it. */
const CANCEL_WAIT_TIMEOUT_MS = 10_000;

/**
 * The Wait's client went away (or its deadline passed) before the answer: the upstream is told
 * with a CancelWait of the same id, as the reference retires a Wait whose stream was reset. The
 * aborted fetch alone does not reach byok-edge's session object (docs/code-mode.md#grpc-bridge).
 */
function cancelWait(wait: WaitRequest, ctx: HandlerContext, upstream: Upstream): void {
  const cancel = { sessionId: wait.sessionId, waitId: wait.waitId };
  upstream.transport
    .unary(CodeModeHost.method.cancelWait, undefined, CANCEL_WAIT_TIMEOUT_MS, header(ctx, upstream), cancel)
    .catch(() => undefined); // the session may be gone already; the Wait is over either way
}

function forwardServerStream(method: DescMethodServerStreaming, upstream: Upstream, order: CompletionOrder) {
  return async function* (request: MessageShape<DescMessage>, ctx: HandlerContext) {
    upstream.onCall?.(method.name);
    try {
      const beats = HEARTBEAT_METHODS.has(method.name);
      const upstreamHeader = header(ctx, upstream);
      if (beats) upstreamHeader.set(HEARTBEAT_HEADER, "on");
      const response = await upstream.transport.stream(method, ctx.signal, ctx.timeoutMs(), upstreamHeader, once(request));
      copyUpstreamMetadata(response.header, ctx.responseHeader);
      ctx.values.get(commitHeadersKey)?.(ctx.responseHeader);
      const messages = beats ? withoutHeartbeats(response.message) : response.message;
      yield* order.inOrder(messages, sessionOf(request));
      copyUpstreamMetadata(response.trailer, ctx.responseTrailer);
    } catch (error) {
      throw asClientError(error);
    }
  };
}

function header(ctx: HandlerContext, upstream: Upstream): Headers {
  return upstreamRequestHeader(ctx.requestHeader, upstream.token);
}

/** The session a stream's messages belong to: its request's, or (OpenSession) the one its `opened` names. */
function sessionOf(request: MessageShape<DescMessage>): (message: unknown) => string | undefined {
  const named = "sessionId" in request && typeof request.sessionId === "string" && request.sessionId !== "" ? request.sessionId : undefined;
  return (message) => {
    if (named !== undefined) return named.toLowerCase();
    const event = (message as Partial<SessionEvent>).event;
    return event?.case === "opened" ? event.value.sessionId.toLowerCase() : undefined;
  };
}

async function* withoutHeartbeats<T>(messages: AsyncIterable<T>): AsyncIterable<T> {
  for await (const message of messages) if (!isHeartbeat(message as SessionEvent | ExecuteEvent | ToolCall)) yield message;
}

async function* once<T>(message: T): AsyncIterable<T> {
  yield message;
}

/** The upstream's error as the client should see it: same code and message; protocol metadata dropped. */
function asClientError(error: unknown): ConnectError {
  const upstreamError = ConnectError.from(error);
  const metadata = new Headers();
  copyUpstreamMetadata(upstreamError.metadata, metadata);
  const clientError = new ConnectError(upstreamError.rawMessage, upstreamError.code, metadata, undefined, upstreamError);
  clientError.details = upstreamError.details; // connect-es encodes incoming details (type + bytes) as they came
  return clientError;
}
