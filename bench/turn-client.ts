// The bench's client (docs/benchmarks.md): one byok-edge turn through `wrangler
// dev` as Cursor sends it (RunSSE, then BidiAppend(run_request), KV replies, exec
// replies), and one relayed stream (the passthrough route or the plain Node relay),
// each timed on the same performance.now() clock as bench/fake-stream-server.ts.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  AgentClientMessageSchema,
  AgentServerMessageSchema,
  type AgentClientMessage,
  type AgentServerMessage,
  type ExecServerMessage,
} from "../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, FLAG_MESSAGE } from "../src/proto/connect/envelope.ts";
import { toHex } from "../src/core/bytes.ts";
import { KvClient } from "../e2e/support/kv-client.ts";
import { CHUNK_MARKER, type StreamPlan, type StreamRecord, type StreamServer } from "./fake-stream-server.ts";

/** Requests retried because a kept-alive connection had been closed by the server. */
export const retries = { stale: 0 };

/** Finds chunk markers as text accumulates; a marker split across reads is found on the next read. */
export class MarkerScanner {
  readonly recvAt: number[] = [];
  /** Chunk numbers in the order they arrived. */
  readonly order: number[] = [];
  #text = "";
  #scanFrom = 0;
  readonly #first = Promise.withResolvers<void>();
  constructor() {
    this.#first.promise.catch(() => {});
  }
  push(text: string, at: number): void {
    this.#text += text;
    const re = new RegExp(CHUNK_MARKER.source, "g");
    re.lastIndex = this.#scanFrom;
    for (let m = re.exec(this.#text); m; m = re.exec(this.#text)) {
      const i = Number(m[1]);
      this.order.push(i);
      this.recvAt[i] ??= at;
      this.#scanFrom = re.lastIndex;
    }
    if (this.recvAt[0] !== undefined) this.#first.resolve();
  }
  /** Resolves when chunk 0 has arrived. */
  get first(): Promise<void> {
    return this.#first.promise;
  }
  fail(error: unknown): void {
    this.#first.reject(error);
  }
  /** True when a chunk arrived before one with a lower number, or twice. */
  get reordered(): boolean {
    return this.order.some((n, i) => i > 0 && n <= this.order[i - 1]!);
  }
  missing(chunks: number): number[] {
    return Array.from({ length: chunks }, (_, i) => i).filter((i) => this.recvAt[i] === undefined);
  }
}

export function appendBody(requestId: string, seqno: number, message: AgentClientMessage): Uint8Array {
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, {
      requestId: { requestId },
      appendSeqno: BigInt(seqno),
      data: toHex(toBinary(AgentClientMessageSchema, message)),
    }),
  );
}

export const heartbeat = () => create(AgentClientMessageSchema, { message: { case: "clientHeartbeat", value: {} } });

/**
 * POST with one retry when the pooled connection turns out to be closed (the
 * keep-alive race: the server closed it as we reused it; nothing was processed).
 * `timing.start` is the start of the attempt that succeeded. Retrying an append
 * is safe: the worker drops a seqno it has already seen.
 */
export async function post(
  url: string,
  token: string,
  body: Uint8Array | string,
  contentType: string,
  signal: AbortSignal,
  timing: { start?: number } = {},
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    timing.start = performance.now();
    try {
      return await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": contentType }, body, signal });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 2 || signal.aborted || code !== "UND_ERR_SOCKET") throw error;
      retries.stale++;
    }
  }
}

/** K sequential requests once the stream has started; round-trip times in ms. */
async function timedRequests(
  count: number,
  started: Promise<void>,
  send: (timing: { start?: number }) => Promise<Response>,
): Promise<number[]> {
  if (count === 0) return [];
  await started;
  const rtts: number[] = [];
  for (let k = 1; k <= count; k++) {
    const timing: { start?: number } = {};
    const res = await send(timing);
    await res.arrayBuffer();
    const t1 = performance.now();
    if (res.status !== 200) throw new Error(`timed request ${k} → ${res.status}`);
    rtts.push(t1 - timing.start!);
  }
  return rtts;
}

export interface TurnResult {
  id: string;
  conversationId: string;
  record: StreamRecord;
  scanner: MarkerScanner;
  /** Just before BidiAppend(run_request) (or the relay POST) was sent. */
  sentAt: number;
  /** When the stream ended (end-stream frame or the relay's last byte). */
  endedAt: number;
  appendRtt: number[];
  /** HTTP requests the turn took: RunSSE and every BidiAppend (1 for a relay). */
  requests: number;
}

export interface TurnOptions {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
  plan: StreamPlan;
  /** A warm turn passes the conversation of an earlier turn; default: a new one. */
  conversationId?: string;
  /** Heartbeat BidiAppends timed one after another once the first text arrives. */
  appends?: number;
  /** Called for each exec request, when it arrives; its reply is appended at once, the send time given to `onExecSent`. */
  onExec?: (exec: ExecServerMessage, at: number) => AgentClientMessage | undefined;
  onExecSent?: (at: number) => void;
  /** Called with the provider's record of this turn's (first) request, before anything is sent. */
  onStart?: (record: StreamRecord) => void;
  /** Called for every server message, when it arrives. */
  onMessage?: (message: AgentServerMessage, at: number) => void;
  /** The marker id the provider matches on (default: a new one). */
  id?: string;
  timeoutMs?: number;
}

/** A marker id for the fake provider (`bench:<id>`). */
export const newRunId = () => `b${randomUUID().replace(/-/g, "")}`;

const turnTimeout = (plan: StreamPlan) => 30_000 + plan.chunks * plan.intervalMs;

/** One byok-edge turn; throws when it does not end cleanly with every chunk delivered. */
export async function byokTurn(opts: TurnOptions): Promise<TurnResult> {
  const { baseUrl, server, token } = opts;
  const id = opts.id ?? newRunId();
  const record = server.prepare(id, opts.plan);
  opts.onStart?.(record);
  const requestId = randomUUID();
  const conversationId = opts.conversationId ?? randomUUID();
  const signal = AbortSignal.timeout(opts.timeoutMs ?? turnTimeout(opts.plan));
  const scanner = new MarkerScanner();

  const streamRes = post(
    `${baseUrl}/agent.v1.AgentService/RunSSE`,
    token,
    encodeEnvelope(FLAG_MESSAGE, toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId }))),
    "application/connect+proto",
    signal,
  );
  streamRes.catch(() => {}); // awaited below
  const runRequest = create(AgentClientMessageSchema, {
    message: {
      case: "runRequest",
      value: {
        conversationId,
        requestedModel: { modelId: opts.model },
        action: {
          action: { case: "userMessageAction", value: { userMessage: { text: `bench:${id}`, messageId: randomUUID(), mode: 1 } } },
        },
      },
    },
  });
  let seqno = 0; // run_request, then heartbeats, KV and exec replies in whatever order they are sent
  const append = (message: AgentClientMessage, timing?: { start?: number }) =>
    post(
      `${baseUrl}/aiserver.v1.BidiService/BidiAppend`,
      token,
      appendBody(requestId, seqno++, message),
      "application/proto",
      signal,
      timing,
    );
  const replies: Promise<void>[] = [];
  const reply = (message: AgentClientMessage, what: string, timing?: { start?: number }) => {
    const sent = append(message, timing).then(async (r) => {
      if (r.status !== 200) throw new Error(`BidiAppend(${what}) → ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    });
    sent.catch(() => {}); // awaited after the stream
    replies.push(sent);
  };

  const sentAt = performance.now();
  const appendRes = await append(runRequest);
  if (appendRes.status !== 200) throw new Error(`BidiAppend(run_request) → ${appendRes.status}: ${await appendRes.text()}`);
  await appendRes.arrayBuffer();

  const appends = timedRequests(opts.appends ?? 0, scanner.first, (timing) => append(heartbeat(), timing));
  appends.catch(() => {});
  const kv = new KvClient(); // like Cursor: acknowledge the conversation-state blobs, or the turn cannot end
  let endedAt = Number.NaN;
  try {
    const res = await streamRes;
    if (res.status !== 200 || !res.body) throw new Error(`RunSSE → ${res.status}: ${await res.text()}`);
    const decoder = new EnvelopeDecoder();
    for await (const bytes of res.body) {
      const at = performance.now();
      for (const envelope of decoder.push(bytes)) {
        if (envelope.flags & FLAG_END_STREAM) {
          const end = JSON.parse(new TextDecoder().decode(envelope.data)) as { error?: { code: string; message?: string } };
          if (end.error) throw new Error(`RunSSE ended with ${end.error.code}: ${end.error.message ?? ""}`);
          endedAt = at;
          continue;
        }
        const message = fromBinary(AgentServerMessageSchema, envelope.data);
        opts.onMessage?.(message, at);
        const kvReply = kv.reply(message);
        if (kvReply) reply(kvReply, "kv reply");
        const execReply = message.message.case === "execServerMessage" ? opts.onExec?.(message.message.value, at) : undefined;
        if (execReply) {
          const timing: { start?: number } = {};
          reply(execReply, "exec reply", timing);
          opts.onExecSent?.(timing.start!);
        }
        if (message.message.case !== "interactionUpdate") continue;
        const update = message.message.value.message;
        if (update.case === "textDelta") scanner.push(update.value.text, at);
      }
    }
    decoder.finish();
    if (Number.isNaN(endedAt)) throw new Error("RunSSE closed without an end-stream frame");
    await Promise.all(replies);
  } catch (error) {
    scanner.fail(error);
    throw error;
  }
  checkComplete(record, scanner, "byok-edge");
  const appendRtt = await appends;
  return { id, conversationId, record, scanner, sentAt, endedAt, appendRtt, requests: 1 + seqno };
}

export interface RelayOptions {
  /** The relay's endpoint: POST {url, body} → the provider's bytes (the passthrough route or the Node relay). */
  url: string;
  server: StreamServer;
  token: string;
  plan: StreamPlan;
  /** Echo requests timed one after another once the first chunk arrives, to `echoUrl`. */
  appends?: number;
  echoUrl?: string;
  timeoutMs?: number;
}

/** One provider stream through a relay, timed like a turn. */
export async function relayRun(opts: RelayOptions): Promise<TurnResult> {
  const { server, token } = opts;
  const id = `p${randomUUID().replace(/-/g, "")}`;
  const record = server.prepare(id, opts.plan);
  const signal = AbortSignal.timeout(opts.timeoutMs ?? turnTimeout(opts.plan));
  const scanner = new MarkerScanner();
  const upstreamBody = JSON.stringify({ model: "bench", stream: true, messages: [{ role: "user", content: `bench:${id}` }] });
  const echoBody = appendBody(randomUUID(), 1, heartbeat()); // the same bytes as a heartbeat BidiAppend

  const sentAt = performance.now();
  const res = await post(
    opts.url,
    token,
    JSON.stringify({ url: `http://127.0.0.1:${server.port}/v1/chat/completions`, body: upstreamBody }),
    "application/json",
    signal,
  );
  if (res.status !== 200 || !res.body) throw new Error(`relay ${opts.url} → ${res.status}: ${await res.text()}`);
  const echoUrl = opts.echoUrl;
  const echoes = echoUrl
    ? timedRequests(opts.appends ?? 0, scanner.first, (timing) => post(echoUrl, token, echoBody, "application/proto", signal, timing))
    : Promise.resolve([]);
  echoes.catch(() => {});
  try {
    const text = new TextDecoder();
    for await (const bytes of res.body) scanner.push(text.decode(bytes, { stream: true }), performance.now());
  } catch (error) {
    scanner.fail(error);
    throw error;
  }
  const endedAt = performance.now();
  checkComplete(record, scanner, "relay");
  const appendRtt = await echoes;
  return { id, conversationId: "", record, scanner, sentAt, endedAt, appendRtt, requests: 1 + appendRtt.length };
}

function checkComplete(record: StreamRecord, scanner: MarkerScanner, what: string): void {
  if (record.plan.toolCall) return; // the tool round's own checks
  const missing = scanner.missing(record.plan.chunks);
  if (missing.length > 0)
    throw new Error(`${what}: chunks never arrived: ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? "…" : ""}`);
  if (record.requestAt === undefined) throw new Error(`${what}: the provider never saw the request`);
}

/** One echo-route round trip (a bare authenticated request carrying a heartbeat append's bytes), ms. */
export async function echoRoundTrip(baseUrl: string, token: string): Promise<number> {
  const timing: { start?: number } = {};
  const res = await post(
    `${baseUrl}/__bench/echo`,
    token,
    appendBody(crypto.randomUUID(), 1, heartbeat()),
    "application/proto",
    AbortSignal.timeout(10_000),
    timing,
  );
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`echo → ${res.status}`);
  return performance.now() - timing.start!;
}

/** A turn that is over at once: what the turn-start, CPU and memory sections time. */
export const SHORT_PLAN: StreamPlan = { chunks: 2, intervalMs: 5 };

/** What every section needs: the worker, the fake provider, the single user's token and model. */
export interface BenchTarget {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
}
