// A scripted Cursor client for tests: builds AgentClientMessages, sends
// BidiAppends and RunSSE through the real worker, and reads frames back
// through the project's own Connect codec.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { exports } from "cloudflare:workers";
import {
  AgentClientMessageSchema,
  AgentServerMessageSchema,
  type AgentClientMessage,
  type AgentServerMessage,
} from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, FLAG_MESSAGE } from "../../src/proto/connect/envelope.ts";
import { withTimeout } from "./deferred.ts";

export const TOKEN = "test-token";
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
            value: { userMessage: { text: opts.text, messageId: opts.messageId ?? crypto.randomUUID(), mode: 1 } },
          },
        },
      },
    },
  });
}

export const heartbeat = () => clientMessage({ message: { case: "clientHeartbeat", value: {} } });

export function authHeaders(token: string | null = TOKEN): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

export function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
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

export async function appendOk(requestId: string, seqno: number, message: AgentClientMessage): Promise<void> {
  const res = await bidiAppend(requestId, seqno, message);
  if (res.status !== 200) throw new Error(`BidiAppend ${seqno} → ${res.status}: ${await res.text()}`);
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

/** Reads a RunSSE body frame by frame; every wait is bounded. */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new EnvelopeDecoder();
  readonly #queue: Frame[] = [];
  readonly frames: Frame[] = [];
  #done = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  static async open(requestId: string): Promise<FrameReader> {
    const res = await runSse(requestId);
    if (res.status !== 200 || !res.body) throw new Error(`RunSSE → ${res.status}: ${await res.text()}`);
    return new FrameReader(res.body);
  }

  /** The next frame, or null when the body closed. */
  async next(timeoutMs = WAIT_MS): Promise<Frame | null> {
    while (this.#queue.length === 0) {
      if (this.#done) return null;
      const { value, done } = await withTimeout(this.#reader.read(), timeoutMs, "the next RunSSE frame");
      if (done) {
        this.#decoder.finish();
        this.#done = true;
        continue;
      }
      for (const env of this.#decoder.push(value)) {
        const frame: Frame =
          env.flags & FLAG_END_STREAM
            ? { kind: "end", json: JSON.parse(new TextDecoder().decode(env.data)) }
            : { kind: "message", message: fromBinary(AgentServerMessageSchema, env.data) };
        this.#queue.push(frame);
        this.frames.push(frame);
      }
    }
    return this.#queue.shift() ?? null;
  }

  /** Reads until a frame matches, returning it. */
  async until(match: (frame: Frame) => boolean, what: string, timeoutMs = WAIT_MS): Promise<Frame> {
    for (;;) {
      const frame = await this.next(timeoutMs);
      if (!frame) throw new Error(`stream closed before ${what}`);
      if (match(frame)) return frame;
    }
  }

  /** Reads to the end: returns the end-stream frame, checking it is the only one and last. */
  async end(timeoutMs = WAIT_MS): Promise<Extract<Frame, { kind: "end" }>["json"]> {
    const end = await this.until((f) => f.kind === "end", "the end-stream frame", timeoutMs);
    const after = await this.next(timeoutMs);
    if (after !== null) throw new Error("a frame followed the end-stream frame");
    const ends = this.frames.filter((f) => f.kind === "end").length;
    if (ends !== 1) throw new Error(`expected exactly one end-stream frame, saw ${ends}`);
    return (end as Extract<Frame, { kind: "end" }>).json;
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

  text(): string {
    return this.updates()
      .filter((u) => u.case === "textDelta")
      .map((u) => (u.value as { text: string }).text)
      .join("");
  }
}

export function updateCase(frame: Frame): string | undefined {
  if (frame.kind !== "message" || frame.message.message.case !== "interactionUpdate") return undefined;
  return frame.message.message.value.message.case;
}

/** Starts a turn on a fresh request: RunSSE first, then the run_request at seqno 0. */
export async function startTurn(opts: RunRequestOptions): Promise<{ requestId: string; reader: FrameReader }> {
  const requestId = opts.requestId ?? crypto.randomUUID();
  const readerPromise = FrameReader.open(requestId);
  await appendOk(requestId, 0, runRequest({ ...opts, requestId }));
  return { requestId, reader: await readerPromise };
}
