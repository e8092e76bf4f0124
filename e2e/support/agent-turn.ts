// One agent turn as Cursor runs it (RunSSE + BidiAppend with a run_request, the
// conversation-state blobs stored and acknowledged), against a `wrangler dev` and
// the fake provider, with the provider's answer scripted: its text in chunks, its
// usage figures, and optionally failed attempts before it (the edge retries them).
// Resolves with what the client received; callers judge it: e2e/main.ts's checkTurn
// asserts the turn, scripts/screenshots/seed.ts only makes realistic runs.
import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { type ConnectTransportOptions, createConnectTransport } from "@connectrpc/connect-node";
import {
  AgentClientMessageSchema,
  AgentService,
  type AgentClientMessage,
  type AgentServerMessage,
} from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiService } from "../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { toHex } from "../../src/core/bytes.ts";
import type { ScriptedResponse, Step } from "../../test/support/fake-provider-types.ts";
import { KvClient } from "./kv-client.ts";

const CALL_TIMEOUT_MS = 15_000;

/** Where the client sends its calls: `wrangler dev` itself, or through a proxy (e2e/connector.ts). */
interface TurnRoute {
  baseUrl: string;
  nodeOptions?: Extract<ConnectTransportOptions, { httpVersion: "1.1" }>["nodeOptions"];
}

export interface TurnOptions {
  route: TurnRoute;
  token: string;
  /** The model name as the user's catalogue lists it. */
  model: string;
  providerBase: string;
  /** The provider's text, one chunk per part. */
  parts: string[];
  usage: { prompt: number; completion: number; cached?: number; reasoning?: number };
  /** The model name the provider answers with. */
  upstreamModel?: string;
  /** HTTP statuses of failed attempts the provider answers first (the edge retries them). */
  failFirst?: number[];
  /** Continue this conversation instead of starting one. */
  conversationId?: string;
  /** The user's message; the scenario marker the fake provider keys on is appended. */
  prompt?: string;
}

export interface TurnResult {
  conversationId: string;
  /** The fake provider's scenario: its recorded requests are at `/__scenarios/<id>/requests`. */
  scenarioId: string;
  /** Every server message, in order. */
  received: AgentServerMessage[];
  /** The interaction updates among them, in order. */
  updates: Extract<AgentServerMessage["message"], { case: "interactionUpdate" }>["value"]["message"][];
  /** The text deltas joined. */
  text: string;
  /** How many conversation-state blobs the client stored and acknowledged. */
  blobs: number;
}

/** Splits a text into chunks of about a dozen characters, at spaces where it can. */
export function textParts(text: string): string[] {
  return text.match(/.{1,12}(\s|$)|.{1,12}/g) ?? [text];
}

/** OpenAI Chat Completions SSE: role chunk, one chunk per part, finish "stop", the usage chunk (empty choices), [DONE]. */
function chatSteps(parts: string[], usage: TurnOptions["usage"], model: string): Step[] {
  const id = `chatcmpl-${randomUUID()}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Step => ({
    data: JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices, ...extra }),
  });
  return [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...parts.map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
    chunk([], {
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        ...(usage.cached !== undefined && { prompt_tokens_details: { cached_tokens: usage.cached } }),
        ...(usage.reasoning !== undefined && { completion_tokens_details: { reasoning_tokens: usage.reasoning } }),
      },
    }),
    { data: "[DONE]" },
  ];
}

/** Runs the turn until the server ends the stream; throws when a call fails or the stream is cut. */
export async function runTurn(turn: TurnOptions): Promise<TurnResult> {
  const scenarioId = `turn-${randomUUID()}`;
  const failures: ScriptedResponse[] = (turn.failFirst ?? []).map((status) => ({
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ error: { message: "overloaded, try again", type: "server_error" } }),
  }));
  const steps = chatSteps(turn.parts, turn.usage, turn.upstreamModel ?? "upstream");
  const put = await fetch(`${turn.providerBase}/__scenarios/${scenarioId}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ responses: [...failures, { steps }] }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  if (!put.ok) throw new Error(`fake provider PUT scenario → HTTP ${put.status}: ${await put.text()}`);

  const bearer: Interceptor = (next) => async (req) => {
    req.header.set("authorization", `Bearer ${turn.token}`);
    // RunSSE is labelled text/event-stream for Cursor; a standard Connect peer asks for the standard label.
    req.header.set("accept", "application/connect+proto");
    return next(req);
  };
  const transport = createConnectTransport({ ...turn.route, httpVersion: "1.1", useBinaryFormat: true, interceptors: [bearer] });
  const agent = createClient(AgentService, transport);
  const bidi = createClient(BidiService, transport);
  const requestId = randomUUID();
  const conversationId = turn.conversationId ?? randomUUID();
  let seqno = 0; // 0 is the run_request; the client's replies follow
  const append = (message: AgentClientMessage) =>
    bidi.bidiAppend(
      { requestId: { requestId }, appendSeqno: BigInt(seqno++), data: toHex(toBinary(AgentClientMessageSchema, message)) },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
  // Like Cursor: store and acknowledge the conversation-state blobs the server sets.
  const kv = new KvClient();
  const replies: Promise<unknown>[] = [];
  const received: AgentServerMessage[] = [];
  const abort = new AbortController();
  const streamDone = (async () => {
    for await (const message of agent.runSSE({ requestId }, { signal: abort.signal, timeoutMs: CALL_TIMEOUT_MS })) {
      received.push(message);
      const reply = kv.reply(message);
      if (reply) replies.push(append(reply));
    }
  })();
  streamDone.catch(() => {}); // it may fail before the append returns; awaited (and reported) below

  const runRequest = create(AgentClientMessageSchema, {
    message: {
      case: "runRequest",
      value: {
        conversationId,
        requestedModel: { modelId: turn.model },
        action: {
          action: {
            case: "userMessageAction",
            value: {
              userMessage: { text: `${turn.prompt ?? ""} scenario:${scenarioId}`.trim(), messageId: randomUUID(), mode: 1 },
            },
          },
        },
      },
    },
  });
  try {
    await append(runRequest);
  } catch (error) {
    abort.abort();
    await streamDone.catch(() => {});
    throw error;
  }
  await streamDone; // throws if the stream ended with an error or was cut
  await Promise.all(replies);

  const updates = received.flatMap((m) => (m.message.case === "interactionUpdate" ? [m.message.value.message] : []));
  const text = updates.flatMap((u) => (u.case === "textDelta" ? [u.value.text] : [])).join("");
  return { conversationId, scenarioId, received, updates, text, blobs: kv.blobs.size };
}
