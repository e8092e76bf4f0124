// Nothing in a model's configuration turns accounting off (docs/hosting.md#limits): even a
// model whose extra_body and headers hold usage-controlling keys (a row stored before they
// were refused) sends byok-edge's own stream, usage and output settings to every provider.
import { describe, expect, it } from "vitest";
import { createProvider } from "../../../src/provider/index.ts";
import { createScenario, fakeProviderUrl } from "../../support/fake-provider.ts";
import { textResponse, WIRES } from "../../support/provider-bodies.ts";
import { collect } from "../../support/provider-harness.ts";

const USAGE_OVERRIDES = {
  stream: false,
  stream_options: { include_usage: false },
  max_tokens: 999_999,
  max_completion_tokens: 999_999,
  max_output_tokens: 999_999,
  n: 4,
  model: "a-bigger-model",
  background: true,
  temperature: 0,
};

describe.each(WIRES)("$wire request builder", ({ wire }) => {
  it("keeps its own stream, usage, output and model settings over extra_body and headers, and the rest of them", async () => {
    const scenario = await createScenario([textResponse(wire, ["ok"])]);
    const request = {
      model: {
        name: "configured",
        provider: wire,
        baseUrl: `${fakeProviderUrl()}/v1`,
        apiKey: "sk-usage-keys-test-0123456789",
        model: "fake-1",
        contextWindow: 100_000,
        maxOutputTokens: 2_048,
        extraBody: USAGE_OVERRIDES,
        headers: { accept: "application/json", "x-max-tokens": "999999", "x-team": "t1" },
      },
      messages: [{ role: "user" as const, content: `hello ${scenario.marker}` }],
      tools: [],
      signal: new AbortController().signal,
    };
    await collect(createProvider(wire).stream(request));
    const [sent] = await scenario.requests(1);
    const body = JSON.parse(sent!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, model: "fake-1", temperature: 0 });
    for (const key of ["n", "background"]) expect(body).not.toHaveProperty(key);
    const cap = { "openai-chat": "max_completion_tokens", "openai-responses": "max_output_tokens", anthropic: "max_tokens" }[wire];
    expect(body[cap]).toBe(2_048);
    for (const key of ["max_tokens", "max_completion_tokens", "max_output_tokens"].filter((k) => k !== cap)) {
      expect(body).not.toHaveProperty(key);
    }
    if (wire === "openai-chat") expect(body.stream_options).toEqual({ include_usage: true });
    else expect(body).not.toHaveProperty("stream_options");
    expect(sent!.headers).toMatchObject({ accept: "text/event-stream", "x-team": "t1" });
    expect(sent!.headers).not.toHaveProperty("x-max-tokens");
  });
});
