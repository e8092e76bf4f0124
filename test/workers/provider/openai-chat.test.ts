// Verifies the OpenAI Chat Completions provider against the scripted fake
// provider: streaming, parsing, the request body and in-stream failures; what
// every provider shares (HTTP failures, abort, stalls) is in provider-stream-loop.test.ts.
import { describe, expect, it } from "vitest";
import { type ChatMessage, createProvider, type ModelRequest } from "../../../src/provider/index.ts";
import { ProviderError } from "../../../src/provider/failure.ts";
import {
  chatChunk,
  chatErrorChunk,
  chatReasoning,
  chatText,
  chatToolCalls,
  createScenario,
  fakeProviderUrl,
  hangAfter,
  withGates,
} from "../../support/fake-provider.ts";
import { collect, collectUntilFailure, providerHarness, remaining } from "../../support/provider-harness.ts";

const API_KEY = "sk-test-never-logged-0123456789";

const { aModel, aRequest, streamOf } = providerHarness({
  name: "fake-model",
  provider: "openai-chat",
  apiKey: API_KEY,
  model: "fake-1",
  contextWindow: 128_000,
});

describe("OpenAI Chat provider streaming", () => {
  it("yields text while the provider is still streaming", async () => {
    // Steps: 0 role, 1 "Hel", 2 "lo", ...; the gate holds everything from "lo" on.
    const { scenario, iterator } = await streamOf([withGates(chatText(["Hel", "lo"]), { 2: "rest" })]);

    expect((await iterator.next()).value).toMatchObject({ kind: "start" });
    expect((await iterator.next()).value).toEqual({ kind: "text_delta", text: "Hel" });
    await scenario.reached("rest");
    await scenario.release("rest");

    expect(await collect(remaining(iterator))).toEqual([
      { kind: "text_delta", text: "lo" },
      { kind: "usage", usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { kind: "done", finish: "stop" },
    ]);
  });

  it("uses the chunk id as the model call id", async () => {
    const { iterator } = await streamOf([chatText(["hi"], { id: "chatcmpl-abc" })]);
    expect((await iterator.next()).value).toEqual({ kind: "start", modelCallId: "chatcmpl-abc", responseModel: "fake" });
  });

  it("starts with the first chunk that says something, so Azure's prompt-filter chunk gives neither id nor model", async () => {
    const answer = chatText(["hi"], { id: "chatcmpl-azure" });
    const filter = {
      data: JSON.stringify({ id: "", model: "", object: "", created: 0, choices: [], prompt_filter_results: [{ prompt_index: 0 }] }),
    };
    const { iterator } = await streamOf([{ ...answer, steps: [filter, ...(answer.steps ?? [])] }]);
    expect((await iterator.next()).value).toEqual({ kind: "start", modelCallId: "chatcmpl-azure", responseModel: "fake" });
  });

  it("turns reasoning_content into thinking deltas that end before the text", async () => {
    const { iterator } = await streamOf([chatReasoning(["Let me ", "think."], ["Answer."])]);
    const events = await collect(remaining(iterator));
    expect(events.map((e) => e.kind)).toEqual(["start", "thinking_delta", "thinking_delta", "thinking_end", "text_delta", "usage", "done"]);
    expect(events.filter((e) => e.kind === "thinking_delta").map((e) => e.text)).toEqual(["Let me ", "think."]);
  });

  it("ends thinking before done when no text follows it", async () => {
    const { iterator } = await streamOf([chatReasoning(["only thinking"], [])]);
    const kinds = (await collect(remaining(iterator))).map((e) => e.kind);
    expect(kinds).toEqual(["start", "thinking_delta", "thinking_end", "usage", "done"]);
  });

  it("streams parallel tool calls with split arguments per index and finishes with tool_use", async () => {
    const calls = [
      { id: "call_a", name: "read_file", args: ['{"pa', 'th":"a', '.ts"}'] },
      { id: "call_b", name: "grep", args: ['{"pattern"', ':"TODO"}'] },
    ];
    const { iterator } = await streamOf([chatToolCalls(calls, { interleave: true })]);
    const events = await collect(remaining(iterator));

    expect(events.filter((e) => e.kind === "tool_call_start")).toEqual([
      { kind: "tool_call_start", index: 0, callId: "call_a", name: "read_file" },
      { kind: "tool_call_start", index: 1, callId: "call_b", name: "grep" },
    ]);
    const argumentsOf = (index: number) =>
      events.flatMap((e) => (e.kind === "tool_call_delta" && e.index === index ? [e.delta] : [])).join("");
    expect(JSON.parse(argumentsOf(0))).toEqual({ path: "a.ts" });
    expect(JSON.parse(argumentsOf(1))).toEqual({ pattern: "TODO" });
    expect(events.slice(-4)).toEqual([
      { kind: "tool_call_end", index: 0 },
      { kind: "tool_call_end", index: 1 },
      expect.objectContaining({ kind: "usage" }),
      { kind: "done", finish: "tool_use" },
    ]);
  });

  it("reports tool_use for any finish once tool calls were seen", async () => {
    const { iterator } = await streamOf([chatToolCalls([{ id: "call_a", name: "ls", args: ["{}"] }], { finishReason: "stop" })]);
    const events = await collect(remaining(iterator));
    expect(events.at(-1)).toEqual({ kind: "done", finish: "tool_use" });
  });

  it("maps finish_reason length to length", async () => {
    const { iterator } = await streamOf([chatText(["trunc"], { finishReason: "length" })]);
    expect((await collect(remaining(iterator))).at(-1)).toEqual({ kind: "done", finish: "length" });
  });

  it("reports usage with cached and reasoning tokens once, before done", async () => {
    const usage = {
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 128 },
    };
    const { iterator } = await streamOf([chatText(["ok"], { usage })]);
    const events = await collect(remaining(iterator));
    expect(events.filter((e) => e.kind === "usage")).toEqual([
      {
        kind: "usage",
        usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 128 },
      },
    ]);
    expect(events.at(-1)?.kind).toBe("done");
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cache reads", async () => {
    const usage = { prompt_tokens: 500, completion_tokens: 20, prompt_cache_hit_tokens: 448, prompt_cache_miss_tokens: 52 };
    const { iterator } = await streamOf([chatText(["ok"], { usage })]);
    const events = await collect(remaining(iterator));
    expect(events.find((e) => e.kind === "usage")).toMatchObject({ usage: { inputTokens: 500, cacheReadTokens: 448 } });
  });
});

describe("OpenAI Chat provider request", () => {
  const history = (marker: string): ChatMessage[] => [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `List the files. ${marker}` },
    {
      role: "assistant",
      content: "",
      reasoning: "I should call ls.",
      toolCalls: [{ id: "call_1", name: "ls", arguments: '{"path": "."}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "ls", content: "a.ts\nb.ts" },
    { role: "assistant", content: "Two files.", reasoning: "" },
    { role: "user", content: "Thanks." },
  ];

  it("sends prompt_cache_key only to OpenAI models, since strict compatible servers reject it", async () => {
    const scenario = await createScenario([chatText(["a"]), chatText(["b"])]);
    const provider = createProvider("openai-chat");
    for (const model of ["gpt-4.1", "deepseek-chat"]) {
      await collect(
        provider.stream({
          model: aModel({ model }),
          messages: history(scenario.marker),
          tools: [],
          signal: new AbortController().signal,
          cacheKey: "k",
        }),
      );
    }
    const [openai, other] = await scenario.requests(2);
    expect(JSON.parse(openai!.body)).toMatchObject({ prompt_cache_key: "k" });
    expect(JSON.parse(other!.body)).not.toHaveProperty("prompt_cache_key");
  });

  it("sends reasoning_content back on every assistant turn of a DeepSeek or Kimi model, also turns without thinking", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const messages: ModelRequest["messages"] = [
      { role: "user", content: `hi ${scenario.marker}` },
      { role: "assistant", content: "no thinking here" },
      { role: "user", content: "again" },
    ];
    await collect(
      createProvider("openai-chat").stream({
        model: aModel({ model: "kimi-k2-thinking" }),
        messages,
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    const [request] = await scenario.requests(1);
    expect((JSON.parse(request!.body) as { messages: unknown[] }).messages[1]).toEqual({
      role: "assistant",
      content: "no thinking here",
      reasoning_content: "",
    });
  });

  it("sends the same bytes for the same input and replays history unchanged", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const request = (): ModelRequest => ({
      model: aModel({
        baseUrl: `${aModel().baseUrl}/`,
        model: "gpt-fake-1",
        maxOutputTokens: 4096,
        reasoningEffort: "high",
        headers: { "x-team": "core" },
        extraBody: { service_tier: "fast" },
      }),
      messages: history(scenario.marker),
      tools: [{ name: "ls", description: "List files", parameters: { type: "object", properties: { path: { type: "string" } } } }],
      signal: new AbortController().signal,
      cacheKey: "conv-123",
    });
    const provider = createProvider("openai-chat");
    await collect(provider.stream(request()));
    await collect(provider.stream(request()));

    const [first, second] = await scenario.requests(2);
    expect(second?.body).toBe(first?.body);
    expect(first?.path).toBe("/v1/chat/completions");
    expect(first?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
      accept: "text/event-stream",
      "x-team": "core",
    });

    const body = JSON.parse(first?.body ?? "{}") as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      "model",
      "messages",
      "tools",
      "stream",
      "stream_options",
      "max_completion_tokens",
      "reasoning_effort",
      "prompt_cache_key",
      "service_tier",
    ]);
    expect(body).toMatchObject({
      model: "gpt-fake-1",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 4096,
      reasoning_effort: "high",
      prompt_cache_key: "conv-123",
      tools: [
        {
          type: "function",
          function: { name: "ls", description: "List files", parameters: { type: "object", properties: { path: { type: "string" } } } },
        },
      ],
    });
    expect((body.messages as unknown[]).slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        reasoning_content: "I should call ls.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"path": "."}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "a.ts\nb.ts" },
      { role: "assistant", content: "Two files.", reasoning_content: "" },
      { role: "user", content: "Thanks." },
    ]);
  });

  it("omits tools, optional limits and the cache key when none are given", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    await collect(createProvider("openai-chat").stream(aRequest(scenario)));
    const [request] = await scenario.requests(1);
    expect(Object.keys(JSON.parse(request?.body ?? "{}"))).toEqual(["model", "messages", "stream", "stream_options"]);
  });
});

describe("OpenAI Chat provider on an Azure OpenAI deployment URL", () => {
  // The fake provider is a real HTTP server on loopback standing in for Azure: it records the
  // path, query string and headers each call arrived with.
  const deployment = () => `${fakeProviderUrl()}/openai/deployments/gpt-4o-prod?api-version=2024-10-21`;

  it("posts to the deployment's chat/completions with the base URL's api-version, and the key as api-key, not Authorization", async () => {
    const scenario = await createScenario([chatText(["Hello from Azure"])]);
    const events = await collect(createProvider("openai-chat").stream(aRequest(scenario, { model: aModel({ baseUrl: deployment() }) })));
    expect(events.filter((e) => e.kind === "text_delta").map((e) => e.text)).toEqual(["Hello from Azure"]);
    const [request] = await scenario.requests(1);
    expect(request?.path).toBe("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
    expect(request?.headers["api-key"]).toBe(API_KEY);
    expect(request?.headers).not.toHaveProperty("authorization");
  });

  it("keeps the api-version last when the deployment URL ends in a slash", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const baseUrl = `${fakeProviderUrl()}/openai/deployments/gpt-4o-prod/?api-version=2024-10-21`;
    await collect(createProvider("openai-chat").stream(aRequest(scenario, { model: aModel({ baseUrl }) })));
    const [request] = await scenario.requests(1);
    expect(request?.path).toBe("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
  });

  it("sends no prompt_cache_key to Azure, whose dated api-versions refuse unknown arguments, even for a gpt model", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const model = aModel({ baseUrl: deployment(), model: "gpt-4o" });
    await collect(createProvider("openai-chat").stream({ ...aRequest(scenario, { model }), cacheKey: "conv-1" }));
    const [request] = await scenario.requests(1);
    expect(JSON.parse(request?.body ?? "{}")).not.toHaveProperty("prompt_cache_key");
  });

  it("sends no key header at all for a model without a key, on Azure's shape as elsewhere", async () => {
    const scenario = await createScenario([chatText(["a"]), chatText(["b"])]);
    for (const baseUrl of [deployment(), `${fakeProviderUrl()}/v1`]) {
      await collect(createProvider("openai-chat").stream(aRequest(scenario, { model: aModel({ baseUrl, apiKey: "" }) })));
    }
    for (const request of await scenario.requests(2)) {
      expect(request.headers).not.toHaveProperty("authorization");
      expect(request.headers).not.toHaveProperty("api-key");
    }
  });

  it("keeps Authorization for a base URL that is not Azure's", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    await collect(createProvider("openai-chat").stream(aRequest(scenario)));
    const [request] = await scenario.requests(1);
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers).not.toHaveProperty("api-key");
  });
});

describe("OpenAI Chat provider failures", () => {
  it("classifies an in-stream error chunk by its code after forwarding earlier events", async () => {
    const id = "chatcmpl-err";
    const { iterator } = await streamOf([
      {
        steps: [
          chatChunk(id, { content: "Hal" }),
          chatErrorChunk({ message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" }),
        ],
      },
    ]);
    const { events, error } = await collectUntilFailure(iterator);
    expect(events.map((e) => e.kind)).toEqual(["start", "text_delta"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "rate_limit", message: "provider stream failed: Rate limit reached" });
  });

  it("completes when the stream stalls after finish_reason but before usage", async () => {
    // Steps: 0 role, 1 text, 2 finish, 3 usage, ...: nothing is sent after the finish chunk.
    const { iterator } = await streamOf([hangAfter(chatText(["whole"]), 3)], {}, { stallTimeoutMs: 100 });
    const events = await collect(remaining(iterator));
    expect(events.map((e) => e.kind)).toEqual(["start", "text_delta", "done"]);
  });
});
