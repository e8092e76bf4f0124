// Verifies the Anthropic Messages provider against the scripted fake provider:
// recorded streams (test/fixtures/anthropic), the request body and its cache
// breakpoints, thinking replay and in-stream failures; what every provider
// shares (HTTP failures, abort, stalls) is in provider-stream-loop.test.ts.
import { describe, expect, it } from "vitest";
import { type ChatMessage, createProvider, type ModelEvent, type ModelRequest, type ToolCallPart } from "../../../src/provider/index.ts";
import { ProviderError } from "../../../src/provider/failure.ts";
import { isRetryable } from "../../../src/provider/retry.ts";
import cacheUsageStream from "../../fixtures/anthropic/cache-usage.sse?raw";
import overloadedStream from "../../fixtures/anthropic/overloaded-error.sse?raw";
import parallelToolUseStream from "../../fixtures/anthropic/parallel-tool-use.sse?raw";
import textStream from "../../fixtures/anthropic/text.sse?raw";
import thinkingToolUseStream from "../../fixtures/anthropic/thinking-tool-use.sse?raw";
import { errorEvent, messageDelta, messageStart, messageStop, sse, textBlock } from "../../fixtures/anthropic/stream.ts";
import { createScenario, type Scenario, type ScriptedResponse, type Step, withGates } from "../../support/fake-provider.ts";
import { collect, collectUntilFailure, providerHarness, remaining } from "../../support/provider-harness.ts";

const API_KEY = "fake-anthropic-key-never-logged-0123456789";

const { aModel, aRequest, streamOf, failureOf } = providerHarness({
  name: "claude",
  provider: "anthropic",
  apiKey: API_KEY,
  model: "claude-sonnet-4-5",
  contextWindow: 200_000,
});

/** A recorded stream as fake-provider steps, one SSE event per step (so tests can gate or cut between events). */
function recorded(stream: string): ScriptedResponse {
  const steps: Step[] = stream
    .split(/\n\n+/)
    .map((event) => event.trim())
    .filter(Boolean)
    .map((event) => ({ raw: `${event}\n\n` }));
  return { steps };
}

/** The assistant message a run stores from a call's events (as src/cursor/agent/model-call.ts folds them). */
function assistantFrom(events: ModelEvent[]): Extract<ChatMessage, { role: "assistant" }> {
  let content = "";
  let reasoning: string | undefined;
  const calls = new Map<number, ToolCallPart>();
  let replay: Extract<ModelEvent, { kind: "replay" }>["value"] | undefined;
  for (const event of events) {
    if (event.kind === "text_delta") content += event.text;
    if (event.kind === "thinking_delta") reasoning = (reasoning ?? "") + event.text;
    if (event.kind === "tool_call_start") calls.set(event.index, { id: event.callId, name: event.name, arguments: "" });
    if (event.kind === "tool_call_delta") {
      const call = calls.get(event.index);
      if (call) call.arguments += event.delta;
    }
    if (event.kind === "replay") replay = event.value;
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  return {
    role: "assistant",
    content,
    ...(reasoning !== undefined && { reasoning }),
    ...(toolCalls.length > 0 && { toolCalls }),
    ...(replay !== undefined && { replay }),
  };
}

interface ApiBody {
  model: string;
  max_tokens: number;
  system?: unknown[];
  messages: { role: string; content: Record<string, unknown>[] }[];
  tools?: Record<string, unknown>[];
  thinking?: unknown;
  stream: boolean;
  [key: string]: unknown;
}

async function bodiesOf(scenario: Scenario, count: number): Promise<{ raw: string; json: ApiBody }[]> {
  const requests = await scenario.requests(count);
  return requests.map((r) => ({ raw: r.body, json: JSON.parse(r.body) as ApiBody }));
}

const EPHEMERAL = { type: "ephemeral" };
const LS_TOOL = { name: "ls", description: "List files", parameters: { type: "object", properties: { path: { type: "string" } } } };
const GREP_TOOL = { name: "grep", description: "Search", parameters: { type: "object", properties: { pattern: { type: "string" } } } };
const USAGE_TEXT = { inputTokens: 25, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

describe("Anthropic provider streaming", () => {
  it("yields text while the provider is still streaming", async () => {
    // text.sse steps: 0 message_start, 1 block start, 2 ping, 3 "Hel", 4 "lo", 5 block stop, 6 message_delta, 7 message_stop.
    const { scenario, iterator } = await streamOf([withGates(recorded(textStream), { 4: "rest" })]);

    expect((await iterator.next()).value).toEqual({ kind: "start", modelCallId: "msg_01TextStream", responseModel: "claude-sonnet-4-5" });
    expect((await iterator.next()).value).toEqual({ kind: "text_delta", text: "Hel" });
    await scenario.reached("rest");
    await scenario.release("rest");

    expect(await collect(remaining(iterator))).toEqual([
      { kind: "text_delta", text: "lo" },
      { kind: "usage", usage: USAGE_TEXT },
      { kind: "done", finish: "stop" },
    ]);
  });

  it("streams thinking, then text and a tool call, and hands back the signed thinking blocks for replay", async () => {
    const { iterator } = await streamOf([recorded(thinkingToolUseStream)]);
    const events = await collect(remaining(iterator));

    expect(events).toEqual([
      { kind: "start", modelCallId: "msg_01ThinkTool", responseModel: "claude-sonnet-4-5" },
      { kind: "thinking_delta", text: "The user wants the files. " },
      { kind: "thinking_delta", text: "I will call ls." },
      { kind: "thinking_end" },
      { kind: "text_delta", text: "Listing the files." },
      { kind: "tool_call_start", index: 0, callId: "toolu_01Ls", name: "ls" },
      { kind: "tool_call_delta", index: 0, delta: '{"path": "."}' },
      { kind: "tool_call_end", index: 0 },
      {
        kind: "replay",
        value: {
          provider: "anthropic",
          data: [
            {
              type: "thinking",
              thinking: "The user wants the files. I will call ls.",
              signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
            },
            {
              type: "redacted_thinking",
              data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kyoH",
            },
          ],
        },
      },
      { kind: "usage", usage: { inputTokens: 480, outputTokens: 96, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { kind: "done", finish: "tool_use" },
    ]);
  });

  it("streams parallel tool calls with split input, indexed by their order among tool calls", async () => {
    const { iterator } = await streamOf([recorded(parallelToolUseStream)]);
    const events = await collect(remaining(iterator));

    // Block indexes are 1 and 2 (text is block 0); tool call indexes start at 0.
    expect(events.filter((e) => e.kind === "tool_call_start")).toEqual([
      { kind: "tool_call_start", index: 0, callId: "toolu_01Read", name: "read_file" },
      { kind: "tool_call_start", index: 1, callId: "toolu_01Grep", name: "grep" },
    ]);
    const inputOf = (index: number) => events.flatMap((e) => (e.kind === "tool_call_delta" && e.index === index ? [e.delta] : [])).join("");
    expect(JSON.parse(inputOf(0))).toEqual({ path: "a.ts" });
    expect(JSON.parse(inputOf(1))).toEqual({ pattern: "TODO" });
    expect(events.map((e) => e.kind)).toEqual([
      "start",
      "text_delta",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_delta",
      "tool_call_delta",
      "tool_call_end",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_delta",
      "tool_call_end",
      "usage",
      "done",
    ]);
    expect(events.at(-1)).toEqual({ kind: "done", finish: "tool_use" });
  });

  it("counts cache reads and writes into input tokens and reports them separately", async () => {
    const { iterator } = await streamOf([recorded(cacheUsageStream)]);
    const events = await collect(remaining(iterator));
    expect(events.filter((e) => e.kind === "usage")).toEqual([
      {
        kind: "usage",
        usage: { inputTokens: 12 + 248 + 9000, outputTokens: 350, cacheReadTokens: 9000, cacheWriteTokens: 248, reasoningTokens: 0 },
      },
    ]);
  });

  it("maps stop_reason max_tokens to length", async () => {
    const { iterator } = await streamOf([recorded(cacheUsageStream)]);
    expect((await collect(remaining(iterator))).at(-1)).toEqual({ kind: "done", finish: "length" });
  });

  it("sends a tool call's input given only on its start event as one delta", async () => {
    const { iterator } = await streamOf([
      {
        steps: [
          messageStart(),
          sse({
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_x", name: "ls", input: { path: "src" } },
          }),
          sse({ type: "content_block_stop", index: 0 }),
          messageDelta("tool_use"),
          messageStop(),
        ],
      },
    ]);
    const events = await collect(remaining(iterator));
    expect(events.filter((e) => e.kind.startsWith("tool_call"))).toEqual([
      { kind: "tool_call_start", index: 0, callId: "toolu_x", name: "ls" },
      { kind: "tool_call_delta", index: 0, delta: '{"path":"src"}' },
      { kind: "tool_call_end", index: 0 },
    ]);
  });

  it("keeps unsigned thinking out of the replay", async () => {
    const { iterator } = await streamOf([
      {
        steps: [
          messageStart(),
          sse({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
          sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hmm" } }),
          sse({ type: "content_block_stop", index: 0 }),
          ...textBlock(1, ["ok"]),
          messageDelta("end_turn"),
          messageStop(),
        ],
      },
    ]);
    const kinds = (await collect(remaining(iterator))).map((e) => e.kind);
    expect(kinds).toEqual(["start", "thinking_delta", "thinking_end", "text_delta", "usage", "done"]);
  });
});

describe("Anthropic provider request", () => {
  const history = (marker: string): ChatMessage[] => [
    { role: "system", content: "You are a coding agent." },
    { role: "system", content: "The workspace is /repo." },
    { role: "user", content: `List the files. ${marker}` },
    { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "ls", arguments: '{"path": "."}' }] },
    { role: "tool", toolCallId: "toolu_1", name: "ls", content: "a.ts\nb.ts" },
    { role: "assistant", content: "Two files." },
    { role: "user", content: "Thanks." },
  ];

  it("sends the key as x-api-key with the API version to /v1/messages", async () => {
    const scenario = await createScenario([recorded(textStream)]);
    const model = aModel({ baseUrl: `${aModel().baseUrl}/`, headers: { "anthropic-beta": "fine-grained-tool-streaming-2025-05-14" } });
    await collect(createProvider("anthropic").stream(aRequest(scenario, { model })));
    const [request] = await scenario.requests(1);
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers).toMatchObject({
      "x-api-key": API_KEY,
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
      accept: "text/event-stream",
      "anthropic-beta": "fine-grained-tool-streaming-2025-05-14",
    });
    expect(request?.headers.authorization).toBeUndefined();
  });

  it("sends no x-api-key for a model without a key (a local server's Anthropic endpoint)", async () => {
    const scenario = await createScenario([recorded(textStream)]);
    await collect(createProvider("anthropic").stream(aRequest(scenario, { model: aModel({ apiKey: "" }) })));
    const [request] = await scenario.requests(1);
    expect(request?.headers).not.toHaveProperty("x-api-key");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  it("sends byte-identical bodies for identical input, with cache breakpoints on system, last tool and last message", async () => {
    const scenario = await createScenario([recorded(textStream), recorded(textStream)]);
    const request = (): ModelRequest => ({
      model: aModel({ maxOutputTokens: 4096, reasoningEffort: "low", extraBody: { metadata: { user_id: "team-1" } } }),
      messages: history(scenario.marker),
      tools: [LS_TOOL, GREP_TOOL],
      signal: new AbortController().signal,
    });
    const provider = createProvider("anthropic");
    await collect(provider.stream(request()));
    await collect(provider.stream(request()));

    const [first, second] = await bodiesOf(scenario, 2);
    expect(second?.raw).toBe(first?.raw);
    const body = first?.json;
    expect(Object.keys(body ?? {})).toEqual(["model", "max_tokens", "system", "messages", "tools", "thinking", "stream", "metadata"]);
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      // 4096 is not above the "low" budget of 4096, so max_tokens is raised.
      max_tokens: 4096 + 4096,
      system: [{ type: "text", text: "You are a coding agent.\n\nThe workspace is /repo.", cache_control: EPHEMERAL }],
      messages: [
        { role: "user", content: [{ type: "text", text: `List the files. ${scenario.marker}` }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts\nb.ts" }] },
        { role: "assistant", content: [{ type: "text", text: "Two files." }] },
        { role: "user", content: [{ type: "text", text: "Thanks.", cache_control: EPHEMERAL }] },
      ],
      tools: [
        { name: "ls", description: "List files", input_schema: LS_TOOL.parameters },
        { name: "grep", description: "Search", input_schema: GREP_TOOL.parameters, cache_control: EPHEMERAL },
      ],
      thinking: { type: "enabled", budget_tokens: 4096 },
      stream: true,
      metadata: { user_id: "team-1" },
    });
    const breakpoints = (first?.raw.match(/"cache_control"/g) ?? []).length;
    expect(breakpoints).toBe(3);
  });

  it("keeps the bytes of earlier messages when the conversation grows; only the last message moves its breakpoint", async () => {
    const scenario = await createScenario([recorded(textStream), recorded(textStream)]);
    const short = history(scenario.marker).slice(0, 5); // ends with the tool result
    const grown = history(scenario.marker);
    const provider = createProvider("anthropic");
    await collect(provider.stream(aRequest(scenario, { messages: short, tools: [LS_TOOL] })));
    await collect(provider.stream(aRequest(scenario, { messages: grown, tools: [LS_TOOL] })));

    const [before, after] = await bodiesOf(scenario, 2);
    const earlier = before?.json.messages ?? [];
    const later = after?.json.messages ?? [];
    expect(earlier).toHaveLength(3);
    expect(later).toHaveLength(5);
    // Everything before the old last message serializes to the same bytes.
    expect(JSON.stringify(later.slice(0, 2))).toBe(JSON.stringify(earlier.slice(0, 2)));
    // The old last message only lost its breakpoint.
    expect(earlier[2]?.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts\nb.ts", cache_control: EPHEMERAL }]);
    expect(later[2]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts\nb.ts" }] });
    // The raw bytes up to that message are identical too (model, max_tokens, system, first messages).
    const prefixEnd = (raw: string) => raw.indexOf('{"type":"tool_result"');
    expect(after?.raw.slice(0, prefixEnd(after.raw))).toBe(before?.raw.slice(0, prefixEnd(before.raw)));
    expect(later.flatMap((m) => m.content).filter((b) => "cache_control" in b)).toHaveLength(1);
    expect(later.at(-1)?.content.at(-1)).toMatchObject({ cache_control: EPHEMERAL });
  });

  it("sends thinking blocks back unchanged, with their signatures, before the text and tool_use blocks", async () => {
    const scenario = await createScenario([recorded(thinkingToolUseStream), recorded(textStream)]);
    const provider = createProvider("anthropic");
    const model = aModel({ reasoningEffort: "medium" });
    const opening: ChatMessage[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: `List the files. ${scenario.marker}` },
    ];
    const assistant = assistantFrom(await collect(provider.stream(aRequest(scenario, { model, messages: opening, tools: [LS_TOOL] }))));
    const callId = assistant.toolCalls?.[0]?.id ?? "";
    const next: ChatMessage[] = [...opening, assistant, { role: "tool", toolCallId: callId, name: "ls", content: "a.ts" }];
    await collect(provider.stream(aRequest(scenario, { model, messages: next, tools: [LS_TOOL] })));

    const [, second] = await bodiesOf(scenario, 2);
    const replayed = second?.json.messages[1];
    expect(replayed).toEqual({
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: "The user wants the files. I will call ls.",
          signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        },
        {
          type: "redacted_thinking",
          data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kyoH",
        },
        { type: "text", text: "Listing the files." },
        { type: "tool_use", id: "toolu_01Ls", name: "ls", input: { path: "." } },
      ],
    });
    expect(second?.json.messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01Ls", content: "a.ts", cache_control: EPHEMERAL }],
    });
    expect(second?.json.thinking).toEqual({ type: "enabled", budget_tokens: 12_000 });
    expect(second?.json.max_tokens).toBe(12_000 + 4096);
  });

  it("puts the tool results of one round into one user message in call order, followed by a user text", async () => {
    const scenario = await createScenario([recorded(textStream)]);
    const messages: ChatMessage[] = [
      { role: "user", content: `Look around. ${scenario.marker}` },
      {
        role: "assistant",
        content: "Looking.",
        toolCalls: [
          { id: "toolu_a", name: "ls", arguments: "{}" },
          { id: "toolu_b", name: "grep", arguments: '{"pattern":"TODO"}' },
          { id: "toolu_c", name: "ls", arguments: "" },
        ],
      },
      { role: "tool", toolCallId: "toolu_a", name: "ls", content: "a.ts" },
      { role: "tool", toolCallId: "toolu_b", name: "grep", content: "no matches", isError: true },
      { role: "tool", toolCallId: "toolu_c", name: "ls", content: "" },
      { role: "user", content: "Also check b.ts." },
    ];
    await collect(createProvider("anthropic").stream(aRequest(scenario, { messages, tools: [LS_TOOL, GREP_TOOL] })));

    const [request] = await bodiesOf(scenario, 1);
    expect(request?.json.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "toolu_a", name: "ls", input: {} },
          { type: "tool_use", id: "toolu_b", name: "grep", input: { pattern: "TODO" } },
          { type: "tool_use", id: "toolu_c", name: "ls", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "a.ts" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "no matches", is_error: true },
          { type: "tool_result", tool_use_id: "toolu_c" },
          { type: "text", text: "Also check b.ts.", cache_control: EPHEMERAL },
        ],
      },
    ]);
  });

  it("drops reasoning from other providers and turns invalid tool input into {}", async () => {
    const scenario = await createScenario([recorded(textStream)]);
    const messages: ChatMessage[] = [
      { role: "user", content: `Go. ${scenario.marker}` },
      {
        role: "assistant",
        content: "",
        reasoning: "DeepSeek thought about it.",
        replay: { provider: "openai-responses", data: [{ type: "reasoning", encrypted_content: "xyz" }] },
        toolCalls: [{ id: "functions.ls:0", name: "ls", arguments: '{"path": ' }],
      },
      { role: "tool", toolCallId: "functions.ls:0", name: "ls", content: "a.ts" },
    ];
    await collect(createProvider("anthropic").stream(aRequest(scenario, { messages, tools: [LS_TOOL] })));

    const [request] = await bodiesOf(scenario, 1);
    expect(request?.json.messages.slice(1)).toEqual([
      // Kimi-style ids are rewritten to the characters the API accepts, the same way on both sides.
      { role: "assistant", content: [{ type: "tool_use", id: "functions_ls_0", name: "ls", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "functions_ls_0", content: "a.ts", cache_control: EPHEMERAL }] },
    ]);
  });

  it("leaves thinking off for a tool round whose assistant message has no thinking block", async () => {
    // The API rejects such a round with thinking on ("must start with a thinking block").
    const scenario = await createScenario([recorded(textStream)]);
    const messages: ChatMessage[] = [
      { role: "user", content: `Go. ${scenario.marker}` },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "ls", arguments: "{}" }] },
      { role: "tool", toolCallId: "call_1", name: "ls", content: "a.ts" },
    ];
    const model = aModel({ reasoningEffort: "high" });
    await collect(createProvider("anthropic").stream(aRequest(scenario, { model, messages, tools: [LS_TOOL] })));
    const [request] = await bodiesOf(scenario, 1);
    expect(request?.json.thinking).toBeUndefined();
    expect(request?.json.max_tokens).toBe(8192);
  });

  it("sends only the required fields when there is no system prompt, tool or reasoning effort", async () => {
    const scenario = await createScenario([recorded(textStream)]);
    const messages: ChatMessage[] = [{ role: "user", content: `Hi. ${scenario.marker}` }];
    await collect(createProvider("anthropic").stream(aRequest(scenario, { messages })));
    const [request] = await bodiesOf(scenario, 1);
    expect(request?.json).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 8192,
      messages: [{ role: "user", content: [{ type: "text", text: `Hi. ${scenario.marker}`, cache_control: EPHEMERAL }] }],
      stream: true,
    });
  });
});

describe("Anthropic provider failures", () => {
  it("fails with a transient error on a mid-stream overloaded error, after forwarding earlier events", async () => {
    const { iterator } = await streamOf([recorded(overloadedStream)]);
    const { events, error } = await collectUntilFailure(iterator);
    expect(events).toEqual([
      { kind: "start", modelCallId: "msg_01Overloaded", responseModel: "claude-sonnet-4-5" },
      { kind: "text_delta", text: "Hal" },
    ]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "transient", message: "provider stream failed: Overloaded" });
    expect(isRetryable(error)).toBe(true);
  });

  it.each([
    ["rate_limit_error", "rate_limit"],
    ["authentication_error", "authorization"],
    ["permission_error", "authorization"],
    ["api_error", "transient"],
    ["invalid_request_error", "request"],
  ])("classifies an in-stream %s as %s", async (type, kind) => {
    const error = await failureOf([{ steps: [messageStart(), errorEvent(type, "upstream said no")] }]);
    expect(error).toMatchObject({ kind, message: "provider stream failed: upstream said no" });
  });

  it("completes when the stream is cut after message_delta, as only message_stop is lost", async () => {
    const { iterator } = await streamOf([
      { steps: [messageStart(), ...textBlock(0, ["whole"]), messageDelta("end_turn", 3), { cut: true }] },
    ]);
    expect(await collect(remaining(iterator))).toEqual([
      { kind: "start", modelCallId: "msg_inline" },
      { kind: "text_delta", text: "whole" },
      { kind: "usage", usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { kind: "done", finish: "stop" },
    ]);
  });
});
