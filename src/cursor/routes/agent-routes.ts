// The two RPCs of an agent run. RunSSE and BidiAppend share a request id; the
// conversation id arrives only inside run_request at append_seqno 0, so both find
// their conversation object through the principal's router object, unless this
// isolate already knows the request's route (docs/architecture.md#routing).
import { fromBinary } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../proto/gen/aiserver/v1/aiserver_pb.ts";
import type { AgentClientMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { decodeClientMessage } from "../../proto/frames.ts";
import { fromHex } from "../../core/bytes.ts";
import { AppError } from "../../core/errors.ts";
import { encodeEndStream } from "../../proto/connect/end-stream.ts";
import { EndStreamWatcher } from "../../proto/connect/envelope.ts";
import { conversationName, routerName } from "../../core/object-names.ts";
import type { ResolveOptions, ResolveResult } from "./request-router.ts";
import { ROUTE_WAIT_MS, ROUTE_WAITERS_MAX } from "./route-rules.ts";
import { OBJECT_HELD_MAX_BYTES, REQUEST_HELD_MAX_BYTES, SEQNO_WINDOW } from "../session/inbox.ts";
import type { Principal } from "../../hosting/auth/principal.ts";
import { callerPersonalKeyBytes } from "../../hosting/auth/caller-key.ts";
import type { AppEnv } from "../../core/env.ts";
import { readUnaryBody, streamResponse } from "../../proto/connect/http.ts";
import { EarlyHeartbeats } from "./early-stream.ts";
import { RouteCache } from "./route-cache.ts";
import { WaitingBytes } from "./waiting-bytes.ts";

/** Cursor's ids are UUIDs; anything much longer is not one of them. */
const ID_MAX_CHARS = 256;

const PARENT_REQUEST_HEADER = "x-parent-request-id";
const PARENT_TOOL_CALL_HEADER = "x-parent-agent-tool-call-id";

/** Routes this isolate has bound or resolved: a known request skips the router hop. */
const knownRoutes = new RouteCache();
/** What appends waiting for their run_request hold in this isolate (waiting-bytes.ts). */
const waiting = new WaitingBytes();

/** The HTTP call being served: its client's going away, and work that must outlive it. */
export interface Caller {
  signal: AbortSignal;
  waitUntil(promise: Promise<unknown>): void;
}

export async function handleRunSse(request: Request, env: AppEnv, principal: Principal, caller: Caller): Promise<Response> {
  checkSubagentHeaders(request);
  const body = await readUnaryBody(request);
  const requestId = decodeOrThrow(() => fromBinary(BidiRequestIdSchema, body), "BidiRequestId").requestId;
  if (!requestId) throw new AppError("invalid_argument", "RunSSE needs a request_id");
  checkIdLength(requestId, "request_id");
  const accept = request.headers.get("accept");
  const known = knownRoutes.get(principal.id, requestId);
  if (known !== undefined) return streamResponse(await conversationStream(env, principal, requestId, known), accept);
  const early = new EarlyHeartbeats();
  const resolving = resolveRoute(env, principal, requestId, caller, { onHeartbeat: () => early.beat() });
  const first = await Promise.race([resolving.then((id) => ({ id })), early.first.then(() => "heartbeat" as const)]);
  if (first !== "heartbeat") return streamResponse(await conversationStream(env, principal, requestId, first.id), accept);
  // A client heartbeat came before seqno 0: answer it now; the conversation's stream follows.
  const next = resolving.then(
    (id) => ({ open: () => conversationStream(env, principal, requestId, id) }),
    // A router that failed (not a clear refusal) is early-stream's `unavailable`: send again.
    (error: unknown) => (error instanceof AppError ? { error } : Promise.reject(error)),
  );
  return streamResponse(early.stream(next), accept);
}

/** The conversation's stream for this request, with the client's going away reported at once. */
async function conversationStream(env: AppEnv, principal: Principal, requestId: string, conversationId: string) {
  const stub = conversationStub(env, principal, conversationId);
  const { id, stream } = await stub.subscribe(requestId);
  const onCancel = () => (id ? stub.unsubscribe(requestId, id) : Promise.resolve());
  return forwardCancel(stream, onCancel);
}

export async function handleBidiAppend(request: Request, env: AppEnv, principal: Principal, caller: Caller): Promise<void> {
  const parent = checkSubagentHeaders(request);
  const body = await readUnaryBody(request);
  const append = decodeOrThrow(() => fromBinary(BidiAppendRequestSchema, body), "BidiAppendRequest");
  const requestId = append.requestId?.requestId ?? "";
  if (!requestId) throw new AppError("invalid_argument", "BidiAppend needs a request_id");
  checkIdLength(requestId, "request_id");
  if (append.dataBinary.byteLength > 0) throw new AppError("invalid_argument", "BidiAppend data_binary is not supported; send hex in data");
  const seqno = Number(append.appendSeqno);
  if (!Number.isSafeInteger(seqno) || seqno < 0) throw new AppError("invalid_argument", "append_seqno must be a non-negative integer");
  const bytes = fromHex(append.data);
  if (!bytes) throw new AppError("invalid_argument", "BidiAppend data is not hex");
  const message = decodeOrThrow(() => decodeClientMessage(bytes), "AgentClientMessage");

  const conversationId =
    message.message.case === "runRequest"
      ? await bindConversation(env, principal, requestId, message)
      : (knownRoutes.get(principal.id, requestId) ?? (await waitForRoute(env, principal, requestId, caller, message, bytes.byteLength)));
  const personalKey = await callerPersonalKeyBytes(principal);
  const result = await conversationStub(env, principal, conversationId)
    .append({
      principal: principal.id,
      ...(principal.kind === "user" && { teamId: principal.teamId }),
      conversationId,
      requestId,
      seqno,
      message: bytes,
      ...(parent && { parent }),
      ...(personalKey && { personalKey }),
    })
    .finally(() => personalKey?.fill(0));
  if (result.status === "overflow") {
    throw new AppError(
      "resource_exhausted",
      `appends waiting for an earlier append_seqno would hold more than ${mib(REQUEST_HELD_MAX_BYTES)} MiB for this request or ${mib(OBJECT_HELD_MAX_BYTES)} MiB for this conversation`,
    );
  }
  if (result.status === "too-far") {
    throw new AppError("invalid_argument", `append_seqno ${seqno} is more than ${SEQNO_WINDOW} ahead of the next expected append_seqno`);
  }
}

async function bindConversation(env: AppEnv, principal: Principal, requestId: string, message: AgentClientMessage): Promise<string> {
  const run = message.message.case === "runRequest" ? message.message.value : undefined;
  // Without a conversation id, the request id names the conversation (docs/protocol.md#bidiappend).
  const conversationId = run?.conversationId || requestId;
  checkIdLength(conversationId, "conversation_id");
  const bound = knownRoutes.get(principal.id, requestId) ?? (await bindRoute(env, principal, requestId, conversationId));
  if (bound !== conversationId) throw new AppError("invalid_argument", "request_id is already bound to another conversation");
  return conversationId;
}

/** Binds the request at the router; the conversation it is bound to, which differs on a conflict. */
async function bindRoute(env: AppEnv, principal: Principal, requestId: string, conversationId: string): Promise<string> {
  const result = await routerStub(env, principal).bind(requestId, conversationId);
  const bound = result.status === "bound" ? conversationId : result.conversationId;
  knownRoutes.set(principal.id, requestId, bound, result.boundAtMs);
  return bound;
}

/** An append whose request is not bound yet waits for its run_request, holding its bytes within the caps of waiting.ts. */
async function waitForRoute(
  env: AppEnv,
  principal: Principal,
  requestId: string,
  caller: Caller,
  message: AgentClientMessage,
  heldBytes: number,
): Promise<string> {
  const held = waiting.take(principal.id, heldBytes);
  if ("over" in held) {
    const whose = held.over === "principal" ? "your appends" : "appends on this server";
    throw new AppError(
      "resource_exhausted",
      `${whose} waiting for their run_request would hold more than ${mib(held.maxBytes)} MiB; send seqno 0 first`,
    );
  }
  try {
    return await resolveRoute(env, principal, requestId, caller, { heartbeat: message.message.case === "clientHeartbeat" });
  } finally {
    held.release();
  }
}

/**
 * The request's conversation from the router, kept so the request's next calls skip it;
 * a clear error when its seqno 0 never came or too many calls wait for theirs.
 */
async function resolveRoute(
  env: AppEnv,
  principal: Principal,
  requestId: string,
  caller: Caller,
  options: ResolveOptions,
): Promise<string> {
  const { signal } = caller;
  if (signal.aborted) throw new AppError("canceled", "the client went away");
  const router = routerStub(env, principal);
  // A client that leaves while its call waits gives its place back at once, not after 30 s.
  const waitId = crypto.randomUUID();
  // In waitUntil: the departed request's own I/O is cancelled with it, so its last call would not go out.
  const stop = () => caller.waitUntil(router.stopWaiting(requestId, waitId).catch(() => undefined));
  signal.addEventListener("abort", stop, { once: true });
  let result: ResolveResult;
  try {
    result = await router.resolve(requestId, { ...options, waitId });
  } finally {
    signal.removeEventListener("abort", stop);
  }
  if (result.status === "timeout") {
    throw new AppError("deadline_exceeded", `no run_request arrived for this request within ${ROUTE_WAIT_MS / 1000} s`);
  }
  if (result.status === "busy") {
    throw new AppError("resource_exhausted", `${ROUTE_WAITERS_MAX} calls are already waiting for a run_request; send seqno 0 first`);
  }
  knownRoutes.set(principal.id, requestId, result.conversationId, result.boundAtMs);
  return result.conversationId;
}

/**
 * Pulls the object's stream chunk by chunk; when the client goes away it tells
 * the conversation object at once, which would otherwise only notice at its
 * next write (a cancel does not cross the RPC boundary by itself).
 */
function forwardCancel(source: ReadableStream<Uint8Array>, onCancel: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // Watches the frames going by, so an interruption after the end-stream adds no second one.
  const frames = new EndStreamWatcher();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          frames.push(value);
          controller.enqueue(value);
        } catch {
          // The object went away mid-stream (eviction, deploy): end the stream
          // with one clear error instead of a broken body.
          if (!frames.seen) {
            controller.enqueue(encodeEndStream(new AppError("unavailable", "the conversation was interrupted; send the message again")));
          }
          controller.close();
        }
      },
      async cancel(reason) {
        await Promise.allSettled([onCancel(), reader.cancel(reason)]);
      },
    },
    { highWaterMark: 0 },
  );
}

function routerStub(env: AppEnv, principal: Principal) {
  return env.ROUTER.getByName(routerName(principal.id));
}

function conversationStub(env: AppEnv, principal: Principal, conversationId: string) {
  return env.CONVERSATION.getByName(conversationName(principal.id, conversationId));
}

/** Subagent runs carry both parent headers; one without the other is a protocol error. */
function checkSubagentHeaders(request: Request): { requestId: string; toolCallId: string } | undefined {
  const requestId = request.headers.get(PARENT_REQUEST_HEADER);
  const toolCallId = request.headers.get(PARENT_TOOL_CALL_HEADER);
  if ((requestId === null) !== (toolCallId === null)) {
    throw new AppError("invalid_argument", `subagent requests need both ${PARENT_REQUEST_HEADER} and ${PARENT_TOOL_CALL_HEADER}`);
  }
  return requestId !== null && toolCallId !== null ? { requestId, toolCallId } : undefined;
}

function checkIdLength(id: string, what: string): void {
  if (id.length > ID_MAX_CHARS) throw new AppError("invalid_argument", `${what} is longer than ${ID_MAX_CHARS} characters`);
}

function mib(bytes: number): number {
  return bytes / 1024 / 1024;
}

function decodeOrThrow<T>(decode: () => T, what: string): T {
  try {
    return decode();
  } catch {
    throw new AppError("invalid_argument", `protocol error: body is not a valid ${what}`);
  }
}
