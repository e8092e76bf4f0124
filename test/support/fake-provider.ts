// Test-side handle on the fake provider server (runs in the Workers runtime):
// register scenarios, steer their gates, read recorded requests, build responses.
import { env } from "cloudflare:workers";
import type { RecordedRequest, ScriptedResponse, Step } from "./fake-provider-types.ts";

export type { ScriptedResponse, Step } from "./fake-provider-types.ts";

/** Server-side bound of every long-poll; tests fail instead of hanging. */
const WAIT_TIMEOUT_MS = 10_000;

export interface Scenario {
  id: string;
  /** Put this in a user message so requests carrying it are served by this scenario. */
  marker: string;
  /** Lets a response waiting at (or later reaching) `gate` continue. */
  release(gate: string): Promise<void>;
  /** Resolves once a response has reached `gate`; rejects after the timeout. */
  reached(gate: string, timeoutMs?: number): Promise<void>;
  /** The recorded requests, after waiting until at least `min` arrived. */
  requests(min?: number, timeoutMs?: number): Promise<RecordedRequest[]>;
}

export function fakeProviderUrl(): string {
  const url = (env as unknown as { FAKE_PROVIDER_URL?: string }).FAKE_PROVIDER_URL;
  if (!url) throw new Error("FAKE_PROVIDER_URL is not bound; is the fake provider started in global setup?");
  return url;
}

export async function createScenario(responses: ScriptedResponse[], id: string = crypto.randomUUID()): Promise<Scenario> {
  const base = `${fakeProviderUrl()}/__scenarios/${encodeURIComponent(id)}`;
  await call("PUT", base, JSON.stringify({ responses }));
  return {
    id,
    marker: `scenario:${id}`,
    release: async (gate) => {
      await call("POST", `${base}/gates/${encodeURIComponent(gate)}`);
    },
    reached: async (gate, timeoutMs = WAIT_TIMEOUT_MS) => {
      await call("GET", `${base}/reached/${encodeURIComponent(gate)}?timeout_ms=${timeoutMs}`);
    },
    requests: async (min = 0, timeoutMs = WAIT_TIMEOUT_MS) =>
      (await (await call("GET", `${base}/requests?min=${min}&timeout_ms=${timeoutMs}`)).json()) as RecordedRequest[],
  };
}

async function call(method: string, url: string, body?: string): Promise<Response> {
  const response = await fetch(url, { method, body, headers: body ? { "content-type": "application/json" } : {} });
  if (!response.ok) {
    throw new Error(`fake provider ${method} ${new URL(url).pathname} → ${response.status}: ${await response.text()}`);
  }
  return response;
}

// ---- OpenAI Chat Completions stream builders ----

export interface ChatStreamOptions {
  /** Chunk id (becomes the modelCallId); unique by default. */
  id?: string;
  /** The usage chunk's `usage`; null leaves the usage chunk out. */
  usage?: Record<string, unknown> | null;
  finishReason?: string;
}

const DEFAULT_CHAT_USAGE = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
const DONE_STEP: Step = { data: "[DONE]" };

/** One `chat.completion.chunk` event with a single choice. */
export function chatChunk(id: string, delta: Record<string, unknown>, finishReason: string | null = null): Step {
  return {
    data: JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created: 0,
      model: "fake",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    }),
  };
}

/** The trailing usage chunk OpenAI sends for `stream_options.include_usage` (empty choices). */
function chatUsageChunk(id: string, usage: Record<string, unknown>): Step {
  return { data: JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "fake", choices: [], usage }) };
}

/** An in-stream error event. */
export function chatErrorChunk(error: { message: string; type?: string; code?: string | number }): Step {
  return { data: JSON.stringify({ error }) };
}

/**
 * Steps: 0 role chunk, 1..n one per part, then finish ("stop"), usage, [DONE].
 */
export function chatText(parts: string[], opts: ChatStreamOptions = {}): ScriptedResponse {
  const id = opts.id ?? newChunkId();
  return {
    steps: [
      chatChunk(id, { role: "assistant", content: "" }),
      ...parts.map((content) => chatChunk(id, { content })),
      ...closing(id, opts.finishReason ?? "stop", opts),
    ],
  };
}

/**
 * Steps: 0 role chunk, then one `reasoning_content` chunk per thinking part, one
 * `content` chunk per text part, finish ("stop"), usage, [DONE].
 */
export function chatReasoning(thinking: string[], text: string[], opts: ChatStreamOptions = {}): ScriptedResponse {
  const id = opts.id ?? newChunkId();
  return {
    steps: [
      chatChunk(id, { role: "assistant", content: null }),
      ...thinking.map((reasoning_content) => chatChunk(id, { reasoning_content })),
      ...text.map((content) => chatChunk(id, { content })),
      ...closing(id, opts.finishReason ?? "stop", opts),
    ],
  };
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** The arguments JSON split into chunks. */
  args: string[];
}

/**
 * Parallel tool calls. Steps: 0 role chunk, one opening chunk per call (id, name,
 * empty arguments), the argument chunks (call by call, or round-robin across calls
 * with `interleave`), finish ("tool_calls"), usage, [DONE].
 */
export function chatToolCalls(calls: ScriptedToolCall[], opts: ChatStreamOptions & { interleave?: boolean } = {}): ScriptedResponse {
  const id = opts.id ?? newChunkId();
  const argChunk = (index: number, part: string) => chatChunk(id, { tool_calls: [{ index, function: { arguments: part } }] });
  const argSteps: Step[] = [];
  if (opts.interleave) {
    const rounds = Math.max(0, ...calls.map((c) => c.args.length));
    for (let round = 0; round < rounds; round++) {
      calls.forEach((c, index) => {
        const part = c.args[round];
        if (part !== undefined) argSteps.push(argChunk(index, part));
      });
    }
  } else {
    for (const [index, c] of calls.entries()) argSteps.push(...c.args.map((part) => argChunk(index, part)));
  }
  return {
    steps: [
      chatChunk(id, { role: "assistant", content: null }),
      ...calls.map((c, index) =>
        chatChunk(id, { tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }),
      ),
      ...argSteps,
      ...closing(id, opts.finishReason ?? "tool_calls", opts),
    ],
  };
}

/** A non-streaming error response shaped like OpenAI's. */
export function httpError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  extra: { type?: string; code?: string } = {},
): ScriptedResponse {
  return { status, headers, body: JSON.stringify({ error: { message, type: extra.type ?? null, code: extra.code ?? null } }) };
}

/** Inserts `{gate}` steps before the given step indexes (of the original steps). */
export function withGates(response: ScriptedResponse, gates: Record<number, string>): ScriptedResponse {
  const steps: Step[] = [];
  (response.steps ?? []).forEach((step, index) => {
    const gate = gates[index];
    if (gate !== undefined) steps.push({ gate });
    steps.push(step);
  });
  return { ...response, steps };
}

/** Keeps the first `count` steps, then never sends anything more. */
export function hangAfter(response: ScriptedResponse, count: number): ScriptedResponse {
  return { ...response, steps: [...(response.steps ?? []).slice(0, count), { hang: true }] };
}

/** Keeps the first `count` steps, then destroys the socket mid-body (a provider cut mid-stream). */
export function cutAfter(response: ScriptedResponse, count: number): ScriptedResponse {
  return { ...response, steps: [...(response.steps ?? []).slice(0, count), { cut: true }] };
}

/** Response headers, then nothing more until the client goes away (a slowloris provider). */
export const HEADERS_THEN_SILENCE: ScriptedResponse = { steps: [{ hang: true }] };

function closing(id: string, finishReason: string, opts: ChatStreamOptions): Step[] {
  const usage = opts.usage === undefined ? DEFAULT_CHAT_USAGE : opts.usage;
  return [chatChunk(id, {}, finishReason), ...(usage ? [chatUsageChunk(id, usage)] : []), DONE_STEP];
}

function newChunkId(): string {
  return `chatcmpl-${crypto.randomUUID()}`;
}
