// `code_mode` in BYOK_MODELS: a model is offered exec and wait only when it is true.
import { describe, expect, it } from "vitest";
import { modelCatalogFromEnv } from "../../../src/hosting/config/byok-models.ts";

const entry = { provider: "openai-chat", base_url: "https://api.example.com/v1", api_key: "sk-config-test", model: "m" };

describe("code_mode in BYOK_MODELS", () => {
  it("reads code_mode: true as a code-mode model, leaves it off otherwise, and refuses a code_mode that is not a boolean", () => {
    const catalog = modelCatalogFromEnv({
      BYOK_MODELS: JSON.stringify([
        { ...entry, name: "coder", code_mode: true },
        { ...entry, name: "plain", code_mode: false },
        { ...entry, name: "unset" },
        { ...entry, name: "odd", code_mode: "yes" },
      ]),
    });
    expect(catalog.models.map((m) => [m.name, m.codeMode])).toEqual([
      ["coder", true],
      ["plain", undefined],
      ["unset", undefined],
    ]);
    expect(catalog.problems.get("odd")).toMatch(/code_mode/);
  });
});
