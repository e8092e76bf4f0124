// The worker's side of CodeModeHost (docs/code-mode.md#service): connect-es serves
// Connect and gRPC-web to clients, and each call goes on, as Connect, to its
// session's object, named by the caller's principal and the session id; streams and
// cancellation pass through (a client gone aborts the forwarded call). The worker
// checks only the session id, and for OpenSession chooses it and renews the lease
// while the stream lasts; it sends heartbeats on long streams when asked.
import { create } from "@bufbuild/protobuf";
import {
  type Client,
  createClient,
  createContextKey,
  createContextValues,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import type { RunnerPrincipal } from "../hosting/auth/principal.ts";
import { sendHeadersNow } from "./host/early-headers.ts";
import { type CodeModeFetchHandler, codeModeFetchHandler } from "./host/fetch-handler.ts";
import { requireUuid } from "./host/ids.ts";
import { forwardWithBeat, HEARTBEAT_HEADER, HEARTBEAT_MS, LEASE_RENEW_MS, SUBSCRIPTION_READY_HEADER } from "./host/lease.ts";
import { leaseRenewal } from "./host/lease-renewal.ts";
import { CELL_CPU_HEADER, PRINCIPAL_HEADER, SESSION_ID_HEADER, TEAM_HEADER } from "./host/session-service.ts";
import { limitsFor } from "../hosting/limits/principal-limits.ts";
import { codeModeSessionName } from "../core/object-names.ts";
import type { AppEnv } from "../core/env.ts";
import { CodeModeHost, ExecuteEventSchema, SessionEventSchema, ToolCallSchema } from "../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { AppError, Code } from "../core/errors.ts";
import { FRAME_MAX_BYTES, HEADER_BYTES } from "../proto/connect/envelope.ts";

export const CODE_MODE_PATH = `/${CodeModeHost.typeName}/*`;

interface Caller {
  env: AppEnv;
  principal: RunnerPrincipal;
}

const CALLER = createContextKey<Caller | undefined>(undefined, { description: "the code-mode caller" });

let gateway: CodeModeFetchHandler | undefined;

export async function handleCodeMode(request: Request, env: AppEnv, principal: RunnerPrincipal): Promise<Response> {
  if (isNativeGrpc(request)) return nativeGrpcRefused();
  // A body that declares more than one message may hold is refused before anything is read or
  // answered: a streaming method would have sent its 200 already (docs/protocol.md#limits).
  if (Number(request.headers.get("content-length") ?? 0) > HEADER_BYTES + FRAME_MAX_BYTES) {
    throw new AppError("resource_exhausted", `request body too large (over ${FRAME_MAX_BYTES / 1024 / 1024} MiB)`);
  }
  gateway ??= codeModeFetchHandler(gatewayService(), { grpcWeb: true });
  const response = await gateway(request, createContextValues().set(CALLER, { env, principal }));
  if (!response) throw new AppError("unimplemented", `${new URL(request.url).pathname} is not a CodeModeHost method`);
  return response;
}

function gatewayService(): ServiceImpl<typeof CodeModeHost> {
  return {
    async *openSession(request, context) {
      const { env, principal } = callerOf(context);
      const sessionId = crypto.randomUUID();
      const stub = sessionStub(env, principal, sessionId);
      const teamId = principal.kind === "user" ? principal.teamId : null;
      // A hosted user holds a slot of their open sessions while the lease is forwarded (docs/hosting.md#limits).
      const limits = limitsFor(env, { id: principal.id, teamId });
      const cellCpuMs = (await limits?.openCodeModeSession(sessionId))?.cellCpuMs;
      const headers = {
        [SESSION_ID_HEADER]: sessionId,
        [PRINCIPAL_HEADER]: principal.id,
        ...(teamId && { [TEAM_HEADER]: teamId }),
        ...(cellCpuMs && { [CELL_CPU_HEADER]: String(cellCpuMs) }),
      };
      try {
        const heartbeat = wantsHeartbeat(context);
        const beatMs = heartbeat ? HEARTBEAT_MS : LEASE_RENEW_MS;
        // The object retires a session whose renewals stop (docs/code-mode.md#leases).
        const renew = leaseRenewal(beatMs, () => {
          limits?.renewCodeModeSession(sessionId);
          return stub.renewLease(sessionId);
        });
        yield* forwardWithBeat(sessionClient(stub).openSession(request, { signal: context.signal, headers }), {
          beatMs,
          onBeat: () => {
            renew();
            return heartbeat ? create(SessionEventSchema, {}) : undefined;
          },
        });
      } finally {
        await limits?.closeCodeModeSession(sessionId);
      }
    },
    closeSession: (request, context) => forward(context, request.sessionId).closeSession(request, { signal: context.signal }),
    async *subscribeToToolCalls(request, context) {
      let subscribed = false;
      const calls = forward(context, request.sessionId).subscribeToToolCalls(request, {
        signal: context.signal,
        // The object's headers say the subscription exists: pass them on at once.
        onHeader: (header) => {
          const ready = header.get(SUBSCRIPTION_READY_HEADER);
          if (ready === null) return;
          subscribed = true;
          context.responseHeader.set(SUBSCRIPTION_READY_HEADER, ready);
          sendHeadersNow(context);
        },
      });
      // No beat before the subscription exists: its message would send the headers, the client's readiness signal, too early.
      const onBeat = () => (subscribed ? create(ToolCallSchema, {}) : undefined);
      if (wantsHeartbeat(context)) yield* forwardWithBeat(calls, { beatMs: HEARTBEAT_MS, onBeat });
      else yield* calls;
    },
    completeToolCall: (request, context) => forward(context, request.sessionId).completeToolCall(request, { signal: context.signal }),
    acknowledgeNotification: (request, context) =>
      forward(context, request.sessionId).acknowledgeNotification(request, { signal: context.signal }),
    async *execute(request, context) {
      const events = forward(context, request.sessionId).execute(request, { signal: context.signal });
      if (wantsHeartbeat(context)) yield* forwardWithBeat(events, { beatMs: HEARTBEAT_MS, onBeat: () => create(ExecuteEventSchema, {}) });
      else yield* events;
    },
    wait: (request, context) => forward(context, request.sessionId).wait(request, { signal: context.signal }),
    yieldObservation: (request, context) => forward(context, request.sessionId).yieldObservation(request, { signal: context.signal }),
    cancelWait: (request, context) => forward(context, request.sessionId).cancelWait(request, { signal: context.signal }),
    terminate: (request, context) => forward(context, request.sessionId).terminate(request, { signal: context.signal }),
  };
}

/** Heartbeats on a long stream, for a client that cannot otherwise be seen leaving it (docs/code-mode.md#leases). */
function wantsHeartbeat(context: HandlerContext): boolean {
  return context.requestHeader.get(HEARTBEAT_HEADER) === "on";
}

function callerOf(context: HandlerContext): Caller {
  const caller = context.values.get(CALLER);
  if (!caller) throw new AppError("internal", "code-mode call without a caller");
  return caller;
}

/** The session object of a request's session id, checked as Codex checks it. */
function forward(context: HandlerContext, rawSessionId: string): Client<typeof CodeModeHost> {
  const { env, principal } = callerOf(context);
  return sessionClient(sessionStub(env, principal, requireUuid("session", rawSessionId)));
}

function sessionStub(env: AppEnv, principal: RunnerPrincipal, sessionId: string) {
  return env.CODE_MODE.getByName(codeModeSessionName(principal.id, sessionId));
}

/** Connect to the object through its fetch; workerd refuses connect-web's `redirect: "error"`. */
function sessionClient(stub: ReturnType<typeof sessionStub>): Client<typeof CodeModeHost> {
  const transport = createConnectTransport({
    baseUrl: "https://code-mode-session.internal",
    useBinaryFormat: true,
    fetch: (input, init) => stub.fetch(input as RequestInfo, { ...init, redirect: "manual" } as RequestInit),
  });
  return createClient(CodeModeHost, transport);
}

/** application/grpc, application/grpc+proto, …, but not gRPC-web. */
function isNativeGrpc(request: Request): boolean {
  return /^application\/grpc(\+[\w-]+)?\s*(;|$)/i.test(request.headers.get("content-type") ?? "");
}

/**
 * A trailers-only gRPC answer (the status in the headers), which a native client
 * reads as UNIMPLEMENTED with this text, where a 415 would only confuse it.
 */
function nativeGrpcRefused(): Response {
  const message =
    "byok-edge serves code mode over the Connect protocol and gRPC-web only (Workers cannot send the HTTP trailers native gRPC needs); use npm run grpc-bridge";
  return new Response(null, {
    status: 200,
    headers: { "content-type": "application/grpc", "grpc-status": String(Code.Unimplemented), "grpc-message": encodeURIComponent(message) },
  });
}
