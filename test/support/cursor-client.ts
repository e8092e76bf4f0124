// A scripted Cursor client for tests: builds AgentClientMessages, sends
// BidiAppends and RunSSE through the real worker, and reads frames back
// through the project's own Connect codec.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { exports } from "cloudflare:workers";
import {
  AgentClientMessageSchema,
  AgentServerMessageSchema,
  GetUsableModelsResponseSchema,
  type McpToolDefinitionSchema,
  type SelectedImageSchema,
  type AgentClientMessage,
  type AgentServerMessage,
  type ConversationStateStructure,
  type ExecServerMessage,
  type InteractionQuery,
} from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, FLAG_MESSAGE } from "../../src/proto/connect/envelope.ts";
import { toHex } from "../../src/core/bytes.ts";
import { withTimeout } from "./deferred.ts";

const TOKEN = "test-token";
export const BASE = "http://byok.test";
const WAIT_MS = 10_000;

export type ClientInit = MessageInitShape<typeof AgentClientMessageSchema>;

export function clientMessage(init: ClientInit): AgentClientMessage {
  return create(AgentClientMessageSchema, init);
}

export interface RunRequestOptions {
  conversationId: string;
  text: string;
  messageId?: string;
  model?: string;
  requestId?: string;
  /** Attached to the user message (selected_context.selected_images). */
  images?: MessageInitShape<typeof SelectedImageSchema>[];
  /** The MCP tools of the inline request context (user_message_action.request_context.tools). */
  mcpTools?: MessageInitShape<typeof McpToolDefinitionSchema>[];
}

export function runRequest(opts: RunRequestOptions): AgentClientMessage {
  return clientMessage({
    message: {
      case: "runRequest",
      value: {
        conversationId: opts.conversationId,
        ...(opts.requestId !== undefined && { runId: opts.requestId }),
        requestedModel: { modelId: opts.model ?? "fake-model" },
        action: {
          action: {
            case: "userMessageAction",
            value: {
              userMessage: {
                text: opts.text,
                messageId: opts.messageId ?? crypto.randomUUID(),
                mode: 1,
                ...(opts.images && { selectedContext: { selectedImages: opts.images } }),
              },
              ...(opts.mcpTools && { requestContext: { tools: opts.mcpTools } }),
            },
          },
        },
      },
    },
  });
}

export const heartbeat = () => clientMessage({ message: { case: "clientHeartbeat", value: {} } });

/** A runtime user message (conversation_action.user_message_action) on a live request. */
export const userMessageAction = (text: string, messageId: string) =>
  clientMessage({
    message: {
      case: "conversationAction",
      value: { action: { case: "userMessageAction", value: { userMessage: { text, messageId, mode: 1 } } } },
    },
  });

function authHeaders(token: string | null = TOKEN): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** Sends one BidiAppend; `data` overrides the hex payload (for malformed input). */
export async function bidiAppend(
  requestId: string,
  seqno: number,
  message: AgentClientMessage | null,
  opts: { data?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Response> {
  const data = opts.data ?? toHex(toBinary(AgentClientMessageSchema, message ?? clientMessage({})));
  const body = toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, { data, requestId: { requestId }, appendSeqno: BigInt(seqno) }),
  );
  return exports.default.fetch(`${BASE}/aiserver.v1.BidiService/BidiAppend`, {
    method: "POST",
    headers: { "content-type": "application/proto", ...authHeaders(opts.token), ...opts.headers },
    body,
  });
}

/** The highest seqno used per request, so automatic replies continue after the test's own appends. */
const lastSeqno = new Map<string, number>();

/** Numbering starts again from 0, as when Cursor reuses a finished request id. */
export function restartSeqnos(requestId: string): void {
  lastSeqno.delete(requestId);
}

export function nextSeqno(requestId: string): number {
  const next = (lastSeqno.get(requestId) ?? -1) + 1;
  lastSeqno.set(requestId, next);
  return next;
}

export async function appendOk(
  requestId: string,
  seqno: number | "next",
  message: AgentClientMessage,
  headers: Record<string, string> = {},
): Promise<void> {
  const n = seqno === "next" ? nextSeqno(requestId) : seqno;
  lastSeqno.set(requestId, Math.max(lastSeqno.get(requestId) ?? -1, n));
  const res = await bidiAppend(requestId, n, message, { headers });
  if (res.status !== 200) throw new Error(`BidiAppend ${n} → ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

export function runSse(requestId: string, opts: { token?: string | null; headers?: Record<string, string> } = {}): Promise<Response> {
  const body = encodeEnvelope(FLAG_MESSAGE, toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })));
  return exports.default.fetch(`${BASE}/agent.v1.AgentService/RunSSE`, {
    method: "POST",
    headers: { "content-type": "application/connect+proto", ...authHeaders(opts.token), ...opts.headers },
    body,
  });
}

export type Frame =
  | { kind: "message"; message: AgentServerMessage }
  | { kind: "end"; json: { error?: { code: string; message?: string; details?: { type: string; value: string }[] } } };

export interface ClientBehaviour {
  /** Answer kv set_blob with success (default true); false models a client that never acknowledges. */
  ackBlobs?: boolean;
  /** Answer every server message that needs a reply (false for replay readers). */
  respond?: boolean;
  /** Called for each exec_server_message; reply with `reader.send(...)`. */
  onExec?: (exec: ExecServerMessage, reader: FrameReader) => void | Promise<void>;
  /** Called for each interaction_query. */
  onInteraction?: (query: InteractionQuery, reader: FrameReader) => void | Promise<void>;
  /** Extra headers on the automatic appends (subagent parent headers). */
  headers?: Record<string, string>;
  /** Blobs the client already holds (hex id → bytes), served on get_blob. */
  blobs?: Map<string, Uint8Array>;
  /** How get_blob of a blob the client does not hold is answered: an empty result (default), an error, or never. */
  missingBlob?: "empty" | "error" | "ignore";
}

/**
 * Reads a RunSSE body in the background, frame by frame, and acts like Cursor:
 * stores blobs the server sets, acknowledges them, serves get_blob, and hands
 * exec and interaction requests to the test. Every wait is bounded.
 */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new EnvelopeDecoder();
  readonly frames: Frame[] = [];
  /** The client's KV store: blob id (hex) → bytes. */
  readonly blobs = new Map<string, Uint8Array>();
  #cursor = 0;
  #closed = false;
  #failure: unknown;
  #wake: (() => void) | undefined;
  readonly #replies: Promise<void>[] = [];

  constructor(
    body: ReadableStream<Uint8Array>,
    readonly requestId: string,
    readonly behaviour: ClientBehaviour = {},
  ) {
    this.#reader = body.getReader();
    for (const [id, data] of behaviour.blobs ?? []) this.blobs.set(id, data);
    void this.#pump();
  }

  static async open(requestId: string, behaviour: ClientBehaviour = {}): Promise<FrameReader> {
    const res = await runSse(requestId, behaviour.headers ? { headers: behaviour.headers } : {});
    if (res.status !== 200 || !res.body) throw new Error(`RunSSE → ${res.status}: ${await res.text()}`);
    return new FrameReader(res.body, requestId, behaviour);
  }

  /** Sends a client message with the request's next seqno. */
  send(message: AgentClientMessage): Promise<void> {
    const reply = appendOk(this.requestId, "next", message, this.behaviour.headers ?? {});
    this.#replies.push(reply);
    return reply;
  }

  async #pump(): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.#reader.read();
        if (done) {
          this.#decoder.finish();
          break;
        }
        for (const env of this.#decoder.push(value)) {
          const frame: Frame =
            env.flags & FLAG_END_STREAM
              ? { kind: "end", json: JSON.parse(new TextDecoder().decode(env.data)) }
              : { kind: "message", message: fromBinary(AgentServerMessageSchema, env.data) };
          this.frames.push(frame);
          if (this.behaviour.respond !== false) await this.#respond(frame);
        }
        this.#notify();
      }
    } catch (err) {
      this.#failure = err;
    }
    this.#closed = true;
    this.#notify();
  }

  async #respond(frame: Frame): Promise<void> {
    if (frame.kind !== "message") return;
    const m = frame.message.message;
    if (m.case === "kvServerMessage") {
      const kv = m.value;
      if (kv.message.case === "setBlobArgs") {
        this.blobs.set(toHex(kv.message.value.blobId), kv.message.value.blobData);
        if (this.behaviour.ackBlobs === false) return;
        void this.send(
          clientMessage({ message: { case: "kvClientMessage", value: { id: kv.id, message: { case: "setBlobResult", value: {} } } } }),
        );
      } else if (kv.message.case === "getBlobArgs") {
        const data = this.blobs.get(toHex(kv.message.value.blobId));
        const missing = this.behaviour.missingBlob ?? "empty";
        if (!data && missing === "ignore") return;
        const result = data ? { blobData: data } : missing === "error" ? { error: { message: "blob not found" } } : {};
        void this.send(
          clientMessage({
            message: { case: "kvClientMessage", value: { id: kv.id, message: { case: "getBlobResult", value: result } } },
          }),
        );
      }
    } else if (m.case === "execServerMessage" && this.behaviour.onExec) {
      this.#replies.push(Promise.resolve(this.behaviour.onExec(m.value, this)));
    } else if (m.case === "interactionQuery" && this.behaviour.onInteraction) {
      this.#replies.push(Promise.resolve(this.behaviour.onInteraction(m.value, this)));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The next frame not yet returned, or null when the body closed. */
  async next(timeoutMs = WAIT_MS): Promise<Frame | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#cursor >= this.frames.length) {
      if (this.#failure) throw this.#failure;
      if (this.#closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for the next RunSSE frame`);
      await withTimeout(new Promise<void>((resolve) => (this.#wake = resolve)), left, "the next RunSSE frame");
    }
    return this.frames[this.#cursor++] ?? null;
  }

  /** Reads until a frame matches, returning it. */
  async until(match: (frame: Frame) => boolean, what: string, timeoutMs = WAIT_MS): Promise<Frame> {
    for (;;) {
      const frame = await this.next(timeoutMs);
      if (!frame) throw new Error(`stream closed before ${what}`);
      if (match(frame)) return frame;
    }
  }

  /** Reads to the end: returns the end-stream frame, checking it is the only one, last, and the body closed. */
  async end(timeoutMs = WAIT_MS): Promise<Extract<Frame, { kind: "end" }>["json"]> {
    const end = await this.until((f) => f.kind === "end", "the end-stream frame", timeoutMs);
    const after = await this.next(timeoutMs);
    if (after !== null) throw new Error("a frame followed the end-stream frame");
    const ends = this.frames.filter((f) => f.kind === "end").length;
    if (ends !== 1) throw new Error(`expected exactly one end-stream frame, saw ${ends}`);
    await Promise.all(this.#replies);
    return (end as Extract<Frame, { kind: "end" }>).json;
  }

  /** Whether the body has closed (read to its end, or broken). */
  get closed(): boolean {
    return this.#closed;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }

  /** Updates seen so far, by their oneof case. */
  updates(): { case: string; value: unknown }[] {
    return this.frames.flatMap((f) =>
      f.kind === "message" && f.message.message.case === "interactionUpdate"
        ? [f.message.message.value.message as { case: string; value: unknown }]
        : [],
    );
  }

  /** Every server message's kind in order: the update case, or the message case. */
  kinds(): string[] {
    return this.frames.map((f) => (f.kind === "end" ? "end" : (updateCase(f) ?? f.message.message.case ?? "empty")));
  }

  text(): string {
    return this.updates()
      .filter((u) => u.case === "textDelta")
      .map((u) => (u.value as { text: string }).text)
      .join("");
  }

  /** The call ids of every tool_call_completed, in order: the cards the client closed. */
  completedCalls(): string[] {
    return this.updates().flatMap((u) => (u.case === "toolCallCompleted" ? [(u.value as { callId: string }).callId] : []));
  }

  checkpoints(): ConversationStateStructure[] {
    return this.frames.flatMap((f) =>
      f.kind === "message" && f.message.message.case === "conversationCheckpointUpdate" ? [f.message.message.value] : [],
    );
  }
}

export function updateCase(frame: Frame): string | undefined {
  if (frame.kind !== "message" || frame.message.message.case !== "interactionUpdate") return undefined;
  return frame.message.message.value.message.case;
}

/** Starts a turn on a fresh request: RunSSE first, then the run_request at seqno 0. */
export async function startTurn(
  opts: RunRequestOptions & { message?: AgentClientMessage },
  behaviour: ClientBehaviour = {},
): Promise<{ requestId: string; reader: FrameReader }> {
  const requestId = opts.requestId ?? crypto.randomUUID();
  const readerPromise = FrameReader.open(requestId, behaviour);
  await appendOk(requestId, 0, opts.message ?? runRequest({ ...opts, requestId }), behaviour.headers ?? {});
  return { requestId, reader: await readerPromise };
}

/** The model names Cursor's model list (GetUsableModels) shows the holder of `token`, in order. */
export async function usableModelNames(token: string): Promise<string[]> {
  const res = await exports.default.fetch(`${BASE}/agent.v1.AgentService/GetUsableModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/proto" },
    body: new Uint8Array(0),
  });
  if (res.status !== 200) throw new Error(`GetUsableModels answered ${res.status}: ${await res.text()}`);
  return fromBinary(GetUsableModelsResponseSchema, new Uint8Array(await res.arrayBuffer())).models.map((m) => m.modelId);
}
