// Verifies the OpenAI Responses provider against the scripted fake provider:
// streaming, parsing, reasoning replay, the request body and in-stream failures; what
// every provider shares (HTTP failures, abort, stalls) is in provider-stream-loop.test.ts.
import { describe, expect, it } from "vitest";
import { type ChatMessage, createProvider, type ModelEvent, type ModelRequest } from "../../../src/provider/index.ts";
import { ProviderError } from "../../../src/provider/failure.ts";
import { isRetryable } from "../../../src/provider/retry.ts";
import { type FunctionCallSpec, responsesStream, responsesText } from "../../fixtures/openai-responses/stream.ts";
import { createScenario, fakeProviderUrl, type ScriptedResponse } from "../../support/fake-provider.ts";
import { collect, collectUntilFailure, providerHarness, remaining } from "../../support/provider-harness.ts";

const API_KEY = "sk-test-never-logged-0123456789";

const { aModel, aRequest, streamOf, failureOf } = providerHarness({
  name: "fake-responses",
  provider: "openai-responses",
  apiKey: API_KEY,
  model: "fake-responses-1",
  contextWindow: 200_000,
});

async function eventsOf(response: ScriptedResponse): Promise<ModelEvent[]> {
  const { iterator } = await streamOf([response]);
  return collect(remaining(iterator));
}

function argumentsOf(events: ModelEvent[], index: number): string {
  return events.flatMap((e) => (e.kind === "tool_call_delta" && e.index === index ? [e.delta] : [])).join("");
}

/** The assistant message a caller stores from a finished stream. */
function assistantFrom(events: ModelEvent[]): ChatMessage {
  const calls = events.flatMap((e) => (e.kind === "tool_call_start" ? [e] : []));
  const replay = events.find((e) => e.kind === "replay");
  return {
    role: "assistant",
    content: events.flatMap((e) => (e.kind === "text_delta" ? [e.text] : [])).join(""),
    reasoning: events.flatMap((e) => (e.kind === "thinking_delta" ? [e.text] : [])).join(""),
    toolCalls: calls.map((c) => ({ id: c.callId, name: c.name, arguments: argumentsOf(events, c.index) })),
    ...(replay && { replay: replay.value }),
  };
}

const USAGE_12_7 = { inputTokens: 12, outputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

describe("OpenAI Responses provider streaming", () => {
  it("yields text deltas while the provider is still streaming", async () => {
    const stream = responsesStream();
    const id = "msg_gated";
    stream
      .event("response.output_item.added", {
        output_index: 0,
        item: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
      })
      .event("response.output_text.delta", { item_id: id, output_index: 0, content_index: 0, delta: "Hel" })
      .gate("rest")
      .event("response.output_text.delta", { item_id: id, output_index: 0, content_index: 0, delta: "lo" })
      .completed();
    const { scenario, iterator } = await streamOf([stream.response()]);

    expect((await iterator.next()).value).toEqual({ kind: "start", modelCallId: stream.id, responseModel: "fake-responses-1" });
    expect((await iterator.next()).value).toEqual({ kind: "text_delta", text: "Hel" });
    await scenario.reached("rest");
    await scenario.release("rest");

    expect(await collect(remaining(iterator))).toEqual([
      { kind: "text_delta", text: "lo" },
      { kind: "usage", usage: USAGE_12_7 },
      { kind: "done", finish: "stop" },
    ]);
  });

  it("uses the response id as the model call id", async () => {
    const events = await eventsOf(responsesText(["hi"], { id: "resp_abc123" }));
    expect(events[0]).toEqual({ kind: "start", modelCallId: "resp_abc123", responseModel: "fake-responses-1" });
  });

  it("turns reasoning summary deltas into thinking that ends before the text", async () => {
    const events = await eventsOf(
      responsesStream()
        .reasoning({ summary: [["**Plan**\n\nRead ", "the file."], ["**Check**\n\nDone."]] })
        .message(["Answer."])
        .completed()
        .response(),
    );
    expect(events.map((e) => e.kind)).toEqual([
      "start",
      "thinking_delta",
      "thinking_delta",
      "thinking_delta",
      "thinking_end",
      "text_delta",
      "replay",
      "usage",
      "done",
    ]);
    // Summary parts are paragraphs of one reasoning text.
    expect(events.flatMap((e) => (e.kind === "thinking_delta" ? [e.text] : []))).toEqual([
      "**Plan**\n\nRead ",
      "the file.",
      "\n\n**Check**\n\nDone.",
    ]);
  });

  it("ends thinking when the reasoning item is done even if nothing follows it", async () => {
    const events = await eventsOf(
      responsesStream()
        .reasoning({ summary: [["only thinking"]] })
        .completed()
        .response(),
    );
    expect(events.map((e) => e.kind)).toEqual(["start", "thinking_delta", "thinking_end", "replay", "usage", "done"]);
  });

  it("reports the encrypted reasoning items exactly as received in a replay event before usage", async () => {
    const stream = responsesStream()
      .reasoning({ id: "rs_1", summary: [["Thinking."]], encrypted: "gAAAAABenc-one==" })
      .functionCall({ callId: "call_1", name: "ls", args: ["{}"] })
      .reasoning({ id: "rs_2", summary: [], encrypted: "gAAAAABenc-two==" })
      .message(["Listing."]);
    const reasoningItems = stream.output.filter((item) => item.type === "reasoning");
    const events = await eventsOf(stream.completed().response());

    expect(events.filter((e) => e.kind === "replay")).toEqual([
      { kind: "replay", value: { provider: "openai-responses", data: reasoningItems } },
    ]);
    expect(reasoningItems).toEqual([
      { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "gAAAAABenc-one==" },
      { id: "rs_2", type: "reasoning", summary: [], encrypted_content: "gAAAAABenc-two==" },
    ]);
    expect(events.slice(-3).map((e) => e.kind)).toEqual(["replay", "usage", "done"]);
  });

  it("sends no replay event when no reasoning item carries encrypted content", async () => {
    const events = await eventsOf(
      responsesStream()
        .reasoning({ summary: [["plain"]], encrypted: null })
        .message(["ok"])
        .completed()
        .response(),
    );
    expect(events.some((e) => e.kind === "replay")).toBe(false);
    expect(events.some((e) => e.kind === "thinking_delta")).toBe(true);
  });

  it("streams parallel function calls with split arguments in output order and finishes with tool_use", async () => {
    const read: FunctionCallSpec = { callId: "call_a", name: "read_file", args: ['{"pa', 'th":"a', '.ts"}'] };
    const grep: FunctionCallSpec = { callId: "call_b", name: "grep", args: ['{"pattern"', ':"TODO"}'] };
    const events = await eventsOf(
      responsesStream()
        .reasoning({ summary: [["Two lookups."]] })
        .functionCall(read)
        .functionCall(grep)
        .completed()
        .response(),
    );

    expect(events.filter((e) => e.kind === "tool_call_start")).toEqual([
      { kind: "tool_call_start", index: 0, callId: "call_a", name: "read_file" },
      { kind: "tool_call_start", index: 1, callId: "call_b", name: "grep" },
    ]);
    expect(events.filter((e) => e.kind === "tool_call_delta" && e.index === 0).map((e) => e.kind === "tool_call_delta" && e.delta)).toEqual(
      read.args,
    );
    expect(JSON.parse(argumentsOf(events, 0))).toEqual({ path: "a.ts" });
    expect(JSON.parse(argumentsOf(events, 1))).toEqual({ pattern: "TODO" });
    const kinds = events.map((e) => e.kind);
    expect(kinds.indexOf("thinking_end")).toBeLessThan(kinds.indexOf("tool_call_start"));
    expect(kinds.indexOf("tool_call_end")).toBeLessThan(kinds.lastIndexOf("tool_call_start")); // first call ends before the second starts
    expect(events.slice(-3).map((e) => e.kind)).toEqual(["replay", "usage", "done"]);
    expect(events.at(-1)).toEqual({ kind: "done", finish: "tool_use" });
  });

  it("matches interleaved argument deltas to their calls by item id", async () => {
    const a: FunctionCallSpec = { callId: "call_a", name: "ls", args: ['{"path":', '"src"}'] };
    const b: FunctionCallSpec = { callId: "call_b", name: "ls", args: ['{"path":', '"test"}'] };
    const stream = responsesStream().functionCallAdded(a).functionCallAdded(b);
    stream.functionCallDelta(b, b.args[0] ?? "").functionCallDelta(a, a.args[0] ?? "");
    stream.functionCallDelta(a, a.args[1] ?? "").functionCallDelta(b, b.args[1] ?? "");
    const events = await eventsOf(stream.functionCallDone(a).functionCallDone(b).completed().response());
    expect(JSON.parse(argumentsOf(events, 0))).toEqual({ path: "src" });
    expect(JSON.parse(argumentsOf(events, 1))).toEqual({ path: "test" });
  });

  it("takes the arguments from the done events when no deltas were streamed", async () => {
    const events = await eventsOf(
      responsesStream().functionCall({ callId: "call_x", name: "grep", args: [], finalArgs: '{"pattern":"x"}' }).completed().response(),
    );
    expect(events.filter((e) => e.kind.startsWith("tool_call"))).toEqual([
      { kind: "tool_call_start", index: 0, callId: "call_x", name: "grep" },
      { kind: "tool_call_delta", index: 0, delta: '{"pattern":"x"}' },
      { kind: "tool_call_end", index: 0 },
    ]);
  });

  it("reports usage with cached and reasoning tokens once, before done", async () => {
    const usage = {
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 1024 },
      output_tokens: 300,
      output_tokens_details: { reasoning_tokens: 128 },
      total_tokens: 1500,
    };
    const events = await eventsOf(responsesStream().message(["ok"]).completed(usage).response());
    expect(events.filter((e) => e.kind === "usage")).toEqual([
      {
        kind: "usage",
        usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 128 },
      },
    ]);
    expect(events.at(-1)?.kind).toBe("done");
  });

  it("finishes with length when the response is incomplete for max_output_tokens", async () => {
    const events = await eventsOf(responsesStream().message(["trunc"]).incomplete("max_output_tokens").response());
    expect(events.slice(-2)).toEqual([
      { kind: "usage", usage: USAGE_12_7 },
      { kind: "done", finish: "length" },
    ]);
  });

  it("finishes as a refusal when the response is incomplete for the content filter", async () => {
    const events = await eventsOf(responsesStream().message(["part"]).incomplete("content_filter").response());
    expect(events.at(-1)).toEqual({ kind: "done", finish: "refusal" });
  });

  it("parses streams that carry only data lines", async () => {
    const events = await eventsOf(responsesText(["plain ", "data"], { eventLines: false }));
    expect(events.filter((e) => e.kind === "text_delta").map((e) => e.kind === "text_delta" && e.text)).toEqual(["plain ", "data"]);
    expect(events.at(-1)).toEqual({ kind: "done", finish: "stop" });
  });

  it("completes at response.completed without waiting for the connection to close", async () => {
    const { iterator } = await streamOf([responsesStream().message(["whole"]).completed().hang().response()], {}, { stallTimeoutMs: 100 });
    const events = await collect(remaining(iterator));
    expect(events.map((e) => e.kind)).toEqual(["start", "text_delta", "usage", "done"]);
  });
});

describe("OpenAI Responses provider request", () => {
  const lsTool = { name: "ls", description: "List files", parameters: { type: "object", properties: { path: { type: "string" } } } };

  const history = (marker: string): ChatMessage[] => [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `List the files. ${marker}` },
    {
      role: "assistant",
      content: "",
      reasoning: "I should call ls.",
      toolCalls: [{ id: "call_1", name: "ls", arguments: '{"path": "."}' }],
      replay: {
        provider: "openai-responses",
        data: [
          {
            id: "rs_1",
            type: "reasoning",
            summary: [{ type: "summary_text", text: "I should call ls." }],
            encrypted_content: "gAAAAABold==",
          },
        ],
      },
    },
    { role: "tool", toolCallId: "call_1", name: "ls", content: "a.ts\nb.ts" },
    { role: "assistant", content: "Two files." },
    { role: "user", content: "Thanks." },
  ];

  it("sends the same bytes for the same input, in a fixed shape, to /responses", async () => {
    const scenario = await createScenario([responsesText(["one"]), responsesText(["two"])]);
    const request = (): ModelRequest => ({
      model: aModel({
        baseUrl: `${aModel().baseUrl}/`,
        maxOutputTokens: 4096,
        reasoningEffort: "high",
        headers: { "x-team": "core" },
        extraBody: { service_tier: "priority" },
      }),
      messages: history(scenario.marker),
      tools: [lsTool],
      signal: new AbortController().signal,
      cacheKey: "conv-123",
    });
    const provider = createProvider("openai-responses");
    await collect(provider.stream(request()));
    await collect(provider.stream(request()));

    const [first, second] = await scenario.requests(2);
    expect(second?.body).toBe(first?.body);
    expect(first?.path).toBe("/v1/responses");
    expect(first?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
      accept: "text/event-stream",
      "x-team": "core",
    });

    const body = JSON.parse(first?.body ?? "{}") as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      "model",
      "input",
      "tools",
      "stream",
      "store",
      "include",
      "max_output_tokens",
      "reasoning",
      "prompt_cache_key",
      "service_tier",
    ]);
    expect(body).toEqual({
      model: "fake-responses-1",
      input: [
        { role: "system", content: [{ type: "input_text", text: "You are a coding agent." }] },
        { role: "user", content: [{ type: "input_text", text: `List the files. ${scenario.marker}` }] },
        {
          id: "rs_1",
          type: "reasoning",
          summary: [{ type: "summary_text", text: "I should call ls." }],
          encrypted_content: "gAAAAABold==",
        },
        { type: "function_call", call_id: "call_1", name: "ls", arguments: '{"path": "."}' },
        { type: "function_call_output", call_id: "call_1", output: "a.ts\nb.ts" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Two files." }] },
        { role: "user", content: [{ type: "input_text", text: "Thanks." }] },
      ],
      tools: [{ type: "function", name: "ls", description: "List files", parameters: lsTool.parameters, strict: false }],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      max_output_tokens: 4096,
      reasoning: { effort: "high", summary: "auto" },
      prompt_cache_key: "conv-123",
      service_tier: "priority",
    });
  });

  it("sends request.cacheKey as prompt_cache_key", async () => {
    const scenario = await createScenario([responsesText(["ok"])]);
    await collect(createProvider("openai-responses").stream(aRequest(scenario, { cacheKey: "conv-abc:7" })));
    const [request] = await scenario.requests(1);
    expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ prompt_cache_key: "conv-abc:7" });
  });

  it("sends no prompt_cache_key to Azure OpenAI, whose dated api-versions refuse unknown arguments, as openai-chat does", async () => {
    // The fake provider on loopback stands in for Azure behind a deployment URL (src/provider/endpoint.ts).
    const scenario = await createScenario([responsesText(["ok"])]);
    const baseUrl = `${fakeProviderUrl()}/openai/deployments/gpt-5-prod?api-version=2025-04-01-preview`;
    const model = aModel({ baseUrl, model: "gpt-5" });
    await collect(createProvider("openai-responses").stream({ ...aRequest(scenario, { model }), cacheKey: "conv-1" }));
    const [request] = await scenario.requests(1);
    expect(request?.path).toBe("/openai/deployments/gpt-5-prod/responses?api-version=2025-04-01-preview");
    expect(JSON.parse(request?.body ?? "{}")).not.toHaveProperty("prompt_cache_key");
  });

  it("omits tools, optional limits, reasoning and the cache key when none are given", async () => {
    const scenario = await createScenario([responsesText(["ok"])]);
    await collect(createProvider("openai-responses").stream(aRequest(scenario)));
    const [request] = await scenario.requests(1);
    expect(Object.keys(JSON.parse(request?.body ?? "{}"))).toEqual(["model", "input", "stream", "store"]);
  });

  it("asks for encrypted reasoning only from models that reason", async () => {
    const scenario = await createScenario([responsesText(["ok"]), responsesText(["ok"])]);
    await collect(createProvider("openai-responses").stream(aRequest(scenario, { model: aModel({ model: "gpt-5-mini" }) })));
    await collect(createProvider("openai-responses").stream(aRequest(scenario, { model: aModel({ reasoningEffort: "low" }) })));
    const requests = await scenario.requests(2);
    for (const request of requests) expect(JSON.parse(request.body)).toMatchObject({ include: ["reasoning.encrypted_content"] });
  });

  it("lets extraBody replace the include list for models without encrypted reasoning", async () => {
    const scenario = await createScenario([responsesText(["ok"])]);
    await collect(createProvider("openai-responses").stream(aRequest(scenario, { model: aModel({ extraBody: { include: [] } }) })));
    const [request] = await scenario.requests(1);
    expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ include: [] });
  });

  it("replays a response's encrypted reasoning items unchanged in the next request, before its function calls", async () => {
    const first = responsesStream()
      .reasoning({ id: "rs_a", summary: [["Need ", "a listing."]], encrypted: "gAAAAABenc-a==" })
      .functionCall({ callId: "call_ls", name: "ls", args: ['{"path":', '"."}'] })
      .functionCall({ callId: "call_cat", name: "cat", args: ['{"path":"a.ts"}'] });
    const receivedReasoning = first.output.filter((item) => item.type === "reasoning");
    const scenario = await createScenario([first.completed().response(), responsesText(["Done."])]);
    const provider = createProvider("openai-responses");

    const opening = aRequest(scenario);
    const events = await collect(provider.stream(opening));
    const assistant = assistantFrom(events);
    await collect(
      provider.stream({
        ...opening,
        messages: [
          ...opening.messages,
          assistant,
          { role: "tool", toolCallId: "call_ls", name: "ls", content: "a.ts" },
          { role: "tool", toolCallId: "call_cat", name: "cat", content: "export {}" },
        ],
      }),
    );

    const [, second] = await scenario.requests(2);
    const input = (JSON.parse(second?.body ?? "{}") as { input: Record<string, unknown>[] }).input;
    expect(input.slice(2)).toEqual([
      ...receivedReasoning,
      { type: "function_call", call_id: "call_ls", name: "ls", arguments: '{"path":"."}' },
      { type: "function_call", call_id: "call_cat", name: "cat", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_ls", output: "a.ts" },
      { type: "function_call_output", call_id: "call_cat", output: "export {}" },
    ]);
    // Unchanged down to the key order, so the prefix stays byte-identical.
    expect(JSON.stringify(input[2])).toBe(JSON.stringify(receivedReasoning[0]));
  });

  it("ignores replay state that belongs to another provider", async () => {
    const scenario = await createScenario([responsesText(["ok"])]);
    const messages: ChatMessage[] = [
      { role: "user", content: `Hi. ${scenario.marker}` },
      {
        role: "assistant",
        content: "Hello.",
        replay: { provider: "anthropic", data: [{ type: "reasoning", signature: "sig" }] },
      },
      { role: "user", content: "Again." },
    ];
    await collect(createProvider("openai-responses").stream(aRequest(scenario, { messages })));
    const [request] = await scenario.requests(1);
    expect((JSON.parse(request?.body ?? "{}") as { input: unknown[] }).input).toEqual([
      { role: "user", content: [{ type: "input_text", text: `Hi. ${scenario.marker}` }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello." }] },
      { role: "user", content: [{ type: "input_text", text: "Again." }] },
    ]);
  });
});

describe("OpenAI Responses provider failures", () => {
  it("classifies a mid-stream response.failed by its code after forwarding earlier events", async () => {
    const stream = responsesStream().event("response.output_item.added", {
      output_index: 0,
      item: { id: "msg_1", type: "message", status: "in_progress", content: [], role: "assistant" },
    });
    stream.event("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hal" });
    stream.failed({ code: "server_error", message: `The model failed (key ${API_KEY}).` });
    const { iterator } = await streamOf([stream.response()]);
    const { events, error } = await collectUntilFailure(iterator);
    expect(events.map((e) => e.kind)).toEqual(["start", "text_delta"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "transient" });
    expect(isRetryable(error)).toBe(true);
    expect((error as ProviderError).message).toBe("provider stream failed: The model failed (key [redacted]).");
  });

  it("classifies an error event by its code", async () => {
    const error = await failureOf([responsesStream().error({ code: "rate_limit_exceeded", message: "Rate limit reached" }).response()]);
    expect(error).toMatchObject({ kind: "rate_limit", message: "provider stream failed: Rate limit reached" });
  });

  it("fails a stream that sends [DONE] before response.completed as transient", async () => {
    const error = await failureOf([{ steps: [...(responsesStream().message(["x"]).response().steps ?? []), { data: "[DONE]" }] }]);
    expect(error).toMatchObject({ kind: "transient", message: "provider stream ended before the response was complete" });
  });
});
