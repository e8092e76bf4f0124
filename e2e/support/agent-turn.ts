// One agent turn as Cursor runs it (RunSSE + BidiAppend with a run_request, KV
// blobs acknowledged), against a `wrangler dev` and the fake provider, with the
// provider's answer scripted: its text, its usage figures, and optionally failed
// attempts before it. Used by `npm run screenshots` (scripts/screenshots.ts) to
// make real runs with realistic token counts; e2e/main.ts has the asserting twin.
import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AgentClientMessageSchema, AgentService, type AgentClientMessage } from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiService } from "../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { toHex } from "../../src/proto/bytes.ts";
import type { ScriptedResponse, Step } from "../../test/support/fake-provider-types.ts";
import { KvClient } from "./kv-client.ts";

const CALL_TIMEOUT_MS = 20_000;

export interface ScriptedTurn {
  baseUrl: string;
  token: string;
  /** The model name as the user's catalogue lists it. */
  model: string;
  providerBase: string;
  text: string;
  usage: { prompt: number; completion: number; cached?: number; reasoning?: number };
  /** HTTP statuses of failed attempts the provider answers first (the edge retries them). */
  failFirst?: number[];
  /** Continue this conversation instead of starting one. */
  conversationId?: string;
}

/** OpenAI Chat Completions SSE: the text in a few chunks, finish "stop", then the usage chunk. */
function chatSteps(text: string, usage: ScriptedTurn["usage"]): Step[] {
  const id = `chatcmpl-${randomUUID()}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Step => ({
    data: JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "upstream", choices, ...extra }),
  });
  const parts = text.match(/.{1,12}(\s|$)|.{1,12}/g) ?? [text];
  return [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    ...parts.map((content) => chunk([{ index: 0, delta: { content }, finish_reason: null }])),
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
    chunk([], {
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
        completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
      },
    }),
    { data: "[DONE]" },
  ];
}

/** Runs the turn to its end; resolves with the conversation id. */
export async function runScriptedTurn(turn: ScriptedTurn): Promise<string> {
  const scenarioId = `shot-${randomUUID()}`;
  const failures: ScriptedResponse[] = (turn.failFirst ?? []).map((status) => ({
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ error: { message: "overloaded, try again", type: "server_error" } }),
  }));
  const put = await fetch(`${turn.providerBase}/__scenarios/${scenarioId}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ responses: [...failures, { steps: chatSteps(turn.text, turn.usage) }] }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  if (!put.ok) throw new Error(`fake provider scenario → HTTP ${put.status}`);

  const bearer: Interceptor = (next) => async (req) => {
    req.header.set("authorization", `Bearer ${turn.token}`);
    req.header.set("accept", "application/connect+proto");
    return next(req);
  };
  const transport = createConnectTransport({ baseUrl: turn.baseUrl, httpVersion: "1.1", useBinaryFormat: true, interceptors: [bearer] });
  const agent = createClient(AgentService, transport);
  const bidi = createClient(BidiService, transport);
  const requestId = randomUUID();
  const conversationId = turn.conversationId ?? randomUUID();
  let seqno = 0;
  const append = (message: AgentClientMessage) =>
    bidi.bidiAppend(
      { requestId: { requestId }, appendSeqno: BigInt(seqno++), data: toHex(toBinary(AgentClientMessageSchema, message)) },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
  const kv = new KvClient();
  const replies: Promise<unknown>[] = [];
  const abort = new AbortController();
  let ended = false;
  const stream = (async () => {
    for await (const message of agent.runSSE({ requestId }, { signal: abort.signal, timeoutMs: CALL_TIMEOUT_MS })) {
      const reply = kv.reply(message);
      if (reply) replies.push(append(reply));
      if (message.message.case === "interactionUpdate" && message.message.value.message.case === "turnEnded") ended = true;
    }
  })();
  stream.catch(() => {}); // awaited below
  const runRequest = create(AgentClientMessageSchema, {
    message: {
      case: "runRequest",
      value: {
        conversationId,
        requestedModel: { modelId: turn.model },
        action: {
          action: {
            case: "userMessageAction",
            value: { userMessage: { text: `scenario:${scenarioId}`, messageId: randomUUID(), mode: 1 } },
          },
        },
      },
    },
  });
  try {
    await append(runRequest);
  } catch (error) {
    abort.abort();
    throw error;
  }
  await stream;
  await Promise.all(replies);
  if (!ended) throw new Error(`the turn on ${turn.model} ended without turn_ended`);
  return conversationId;
}
