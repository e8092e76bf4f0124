// The provider presets of the Credentials page (dashboard/src/providers/presets.ts): every
// base URL passes the server's own upstream URL rules as documented (hosted ones everywhere,
// loopback ones where BYOK_ALLOW_PRIVATE_UPSTREAMS=true, which a local npm run dev sets and a
// deployment does not), and Azure's deployment URL is built from its two names.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { baseUrlOf, PRESETS, presetById, presetOfBaseUrl, unfilledPlaceholder } from "../../../dashboard/src/providers/presets.ts";
import { freshDevVars } from "../../../scripts/dev-vars.ts";
import { endpointUrl, isAzureOpenAi } from "../../../src/provider/endpoint.ts";
import { checkUpstreamUrl } from "../../../src/provider/upstream-url.ts";

/** A preset's base URL as a user would save it: every placeholder named. */
const filled = (id: string) => {
  const preset = presetById(id)!;
  return baseUrlOf(preset, Object.fromEntries((preset.placeholders ?? []).map((p) => [p.name, `my-${p.name}`])));
};

describe("the provider presets", () => {
  it("offer every provider the issue names, each once", () => {
    expect(PRESETS.map((p) => p.id)).toEqual([
      "openai",
      "anthropic",
      "openrouter",
      "deepseek",
      "groq",
      "mistral",
      "together",
      "fireworks",
      "xai",
      "gemini",
      "azure",
      "ollama",
      "lmstudio",
      "llamacpp",
      "vllm",
    ]);
  });

  it("each say what the key looks like and link to https documentation", () => {
    for (const preset of PRESETS) {
      expect(preset.label, preset.id).not.toBe("");
      expect(preset.keyHint, preset.id).toMatch(/\S/);
      expect(new URL(preset.docs).protocol, preset.id).toBe("https:");
    }
  });

  it("need a key for every hosted service and none for the servers on this machine", () => {
    for (const preset of PRESETS) expect(preset.keyNeeded, preset.id).toBe(!preset.local);
  });

  it("have hosted base URLs that pass the upstream rules even where private upstreams are refused", () => {
    for (const preset of PRESETS.filter((p) => !p.local)) {
      expect(checkUpstreamUrl(filled(preset.id), false), preset.id).toBeUndefined();
    }
  });

  it("have loopback base URLs for local servers: allowed with BYOK_ALLOW_PRIVATE_UPSTREAMS=true, else refused with how to allow them", () => {
    for (const preset of PRESETS.filter((p) => p.local)) {
      expect(new URL(preset.baseUrl).hostname, preset.id).toBe("127.0.0.1");
      expect(checkUpstreamUrl(preset.baseUrl, true), preset.id).toBeUndefined();
      expect(checkUpstreamUrl(preset.baseUrl, false), preset.id).toMatch(
        /loopback address.*BYOK_ALLOW_PRIVATE_UPSTREAMS=true: a local npm run dev sets it in the \.dev\.vars it writes/,
      );
    }
  });

  it("rely on what is documented: a first npm run dev allows private upstreams, a deployment does not", () => {
    expect(parseEnv(freshDevVars().text).BYOK_ALLOW_PRIVATE_UPSTREAMS).toBe("true");
    const wrangler = readFileSync(resolve(import.meta.dirname, "../../../wrangler.toml"), "utf8");
    expect(wrangler).toMatch(/^\[vars\]\nBYOK_ALLOW_PRIVATE_UPSTREAMS = "false"$/m);
  });
});

describe("the Azure OpenAI preset", () => {
  const azure = presetById("azure")!;

  it("builds the deployment URL with its api-version from the resource and deployment names", () => {
    const url = baseUrlOf(azure, { resource: "contoso", deployment: "gpt-4o-prod" });
    expect(url).toBe("https://contoso.openai.azure.com/openai/deployments/gpt-4o-prod?api-version=2024-10-21");
    expect(isAzureOpenAi(url)).toBe(true);
    expect(endpointUrl(url, "/chat/completions")).toBe(
      "https://contoso.openai.azure.com/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21",
    );
  });

  it("keeps a placeholder not yet named, so the form can say which to fill in", () => {
    const url = baseUrlOf(azure, { resource: " contoso ", deployment: "" });
    expect(url).toBe("https://contoso.openai.azure.com/openai/deployments/{deployment}?api-version=2024-10-21");
    expect(unfilledPlaceholder(url)).toBe("deployment");
    expect(unfilledPlaceholder(baseUrlOf(azure, {}))).toBe("resource");
    expect(unfilledPlaceholder(filled("azure"))).toBeUndefined();
  });

  it("escapes a name that is not a plain URL part", () => {
    expect(baseUrlOf(azure, { resource: "contoso", deployment: "a/b?c" })).toContain("/deployments/a%2Fb%3Fc?api-version=");
  });
});

describe("presetOfBaseUrl", () => {
  it("finds the preset of a stored credential by its base URL, a trailing slash or another path on its host", () => {
    for (const preset of PRESETS.filter((p) => !p.placeholders)) {
      expect(presetOfBaseUrl(preset.baseUrl)?.id, preset.id).toBe(preset.id);
      expect(presetOfBaseUrl(`${preset.baseUrl}/`)?.id, preset.id).toBe(preset.id);
    }
    expect(presetOfBaseUrl(filled("azure"))?.id).toBe("azure");
    expect(presetOfBaseUrl("https://api.openai.com/v2")?.id).toBe("openai");
  });

  it("finds none for a server no preset describes", () => {
    expect(presetOfBaseUrl("http://127.0.0.1:9999/v1")).toBeUndefined();
    expect(presetOfBaseUrl("https://gateway.example.com/v1")).toBeUndefined();
    expect(presetOfBaseUrl("not a url")).toBeUndefined();
  });
});
