// BYOK_MODELS validation and the guard against private upstream addresses.
import { describe, expect, it } from "vitest";
import { modelCatalogFromEnv } from "../../../src/hosting/config/byok-models.ts";
import { checkUpstreamUrl } from "../../../src/provider/upstream-url.ts";
import { PRIVATE_HOSTS, PUBLIC_HOSTS } from "../../support/upstream-hosts.ts";

const PRIVATE_HOST = /loopback or private address/;
/** The catalog the worker reads from its env. */
const catalogOf = (raw: string) => modelCatalogFromEnv({ BYOK_MODELS: raw, BYOK_ALLOW_PRIVATE_UPSTREAMS: "false" });

describe("upstream URL guard", () => {
  it("treats loopback, private, link-local, mapped and NAT64 forms of them as private", () => {
    for (const host of [
      "localhost",
      "localhost.",
      "127.0.0.1",
      "10.1.2.3",
      "192.168.0.1",
      "169.254.169.254",
      "[::1]",
      "[fe81::1]",
      "[fd00::1]",
      "[::ffff:7f00:1]",
      "[64:ff9b::a00:1]",
    ]) {
      expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toMatch(PRIVATE_HOST);
    }
    for (const host of ["api.openai.com", "8.8.8.8", "[2606:4700::1111]"]) {
      expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toBeUndefined();
    }
  });

  it("refuses every spelling of a private destination under the Workers URL parser too", () => {
    for (const host of Object.values(PRIVATE_HOSTS).flat())
      expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toMatch(PRIVATE_HOST);
    for (const host of PUBLIC_HOSTS) expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toBeUndefined();
  });

  it("refuses private or plain-http base URLs unless private upstreams are allowed", () => {
    expect(checkUpstreamUrl("http://127.0.0.1:8080/v1", false)).toMatch(/BYOK_ALLOW_PRIVATE_UPSTREAMS/);
    expect(checkUpstreamUrl("http://api.example.com/v1", false)).toMatch(/https/);
    expect(checkUpstreamUrl("https://user:pw@api.example.com/v1", false)).toMatch(/credentials/);
    expect(checkUpstreamUrl("http://127.0.0.1:8080/v1", true)).toBeUndefined();
    expect(checkUpstreamUrl("https://api.openai.com/v1", false)).toBeUndefined();
  });
});

describe("BYOK_MODELS", () => {
  it("takes an entry without api_key, for a server that checks none, as a model without a key", () => {
    const catalog = modelCatalogFromEnv({
      BYOK_MODELS: JSON.stringify([{ name: "ollama", provider: "openai-chat", base_url: "http://127.0.0.1:11434/v1", model: "qwen3" }]),
      BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
    });
    expect([...catalog.problems.keys()]).toEqual([]);
    expect(catalog.models.map((m) => ({ name: m.name, apiKey: m.apiKey }))).toEqual([{ name: "ollama", apiKey: "" }]);
  });

  it("gives a model the other entries its fallbacks name, in order, and says which names are not models", () => {
    const entry = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      provider: "openai-chat",
      base_url: "https://api.example.com/v1",
      model: name,
      ...extra,
    });
    const catalog = catalogOf(
      JSON.stringify([entry("main", { fallbacks: ["b", "missing", "main", "a"] }), entry("a", { fallbacks: ["b"] }), entry("b")]),
    );
    const main = catalog.models.find((m) => m.name === "main")!;
    expect(main.fallbacks?.map((m) => m.name)).toEqual(["b", "a"]);
    // A fallback does not fall back further.
    expect(main.fallbacks?.every((m) => m.fallbacks === undefined)).toBe(true);
    expect(catalog.problems.get("main fallbacks")).toContain("missing, main");
  });

  it("gives an entry with keys its own key and the listed ones, by weight, and refuses a key's private URL without its key", () => {
    const base = { provider: "openai-chat", base_url: "https://api.example.com/v1", model: "m" };
    const catalog = catalogOf(
      JSON.stringify([
        {
          ...base,
          name: "spread",
          api_key: "sk-own-key-0001",
          keys: [
            { api_key: "sk-own-key-0001", weight: 3 },
            { api_key: "sk-second-0002", weight: 2 },
            { api_key: "sk-third-0003", base_url: "https://eu.example.com/v1/" },
          ],
        },
        { ...base, name: "alone", api_key: "sk-alone-0004", keys: [{ api_key: "sk-alone-0004" }] },
        { ...base, name: "leaky", api_key: "sk-leaky-0005", keys: [{ api_key: "sk-leaky-0006", base_url: "http://10.0.0.1/v1" }] },
      ]),
    );
    const spread = catalog.models.find((m) => m.name === "spread")!;
    expect(spread.keys?.pool).toBe("byok:spread");
    expect(spread.keys?.keys.map((k) => [k.id, k.weight, k.baseUrl, k.apiKey])).toEqual([
      ["spread#0", 3, "https://api.example.com/v1", "sk-own-key-0001"],
      ["spread#2", 2, "https://api.example.com/v1", "sk-second-0002"],
      ["spread#3", 1, "https://eu.example.com/v1", "sk-third-0003"],
    ]);
    // A version changes with the key, and says nothing of it.
    const versions = spread.keys!.keys.map((k) => k.version);
    expect(new Set(versions).size).toBe(3);
    expect(versions.join()).not.toMatch(/sk-/);
    // Listing only its own key leaves a model of one key, as before.
    expect(catalog.models.find((m) => m.name === "alone")?.keys).toBeUndefined();
    expect(catalog.models.map((m) => m.name)).not.toContain("leaky");
    expect(catalog.problems.get("leaky")).toMatch(/keys\.0\.base_url: .*private address/);
    expect(catalog.problems.get("leaky")).not.toMatch(/sk-/);
  });

  it("keeps good entries and reports bad ones without their keys", () => {
    const catalog = catalogOf(
      JSON.stringify([
        { name: "good", provider: "anthropic", base_url: "https://api.anthropic.com/v1", api_key: "sk-ant-secret-1", model: "claude" },
        { name: "local", provider: "openai-chat", base_url: "http://127.0.0.1:1/v1", api_key: "sk-secret-2", model: "m" },
        { name: "broken", provider: "openai-chat", api_key: "sk-secret-3" },
        { name: "weird", provider: "gemini", base_url: "https://x.example", api_key: "sk-secret-4", model: "m" },
      ]),
    );
    expect(catalog.models.map((m) => m.name)).toEqual(["good"]);
    expect([...catalog.problems.keys()]).toEqual(["local", "broken", "weird"]);
    expect(JSON.stringify([...catalog.problems.values()])).not.toMatch(/sk-/);
  });

  it("reads vision: false as a model that cannot take images, and refuses a vision that is not a boolean", () => {
    const entry = { provider: "anthropic", base_url: "https://api.anthropic.com/v1", api_key: "sk-ant-secret", model: "claude" };
    const catalog = catalogOf(
      JSON.stringify([
        { ...entry, name: "blind", vision: false },
        { ...entry, name: "seeing", vision: true },
        { ...entry, name: "default" },
        { ...entry, name: "odd", vision: "no" },
      ]),
    );
    expect(catalog.models.map((m) => [m.name, m.vision])).toEqual([
      ["blind", false],
      ["seeing", undefined],
      ["default", undefined],
    ]);
    expect(catalog.problems.get("odd")).toMatch(/vision/);
  });

  it("reads retry_budget_ms as the model's retry budget, and refuses one that is negative or over 10 minutes", () => {
    const entry = { provider: "anthropic", base_url: "https://api.anthropic.com/v1", api_key: "sk-ant-secret", model: "claude" };
    const catalog = catalogOf(
      JSON.stringify([
        { ...entry, name: "patient", retry_budget_ms: 300_000 },
        { ...entry, name: "no-retries", retry_budget_ms: 0 },
        { ...entry, name: "default" },
        { ...entry, name: "negative", retry_budget_ms: -1 },
        { ...entry, name: "forever", retry_budget_ms: 600_001 },
      ]),
    );
    expect(catalog.models.map((m) => [m.name, m.retryBudgetMs])).toEqual([
      ["patient", 300_000],
      ["no-retries", 0],
      ["default", undefined],
    ]);
    expect(catalog.problems.get("negative")).toMatch(/retry_budget_ms/);
    expect(catalog.problems.get("forever")).toMatch(/retry_budget_ms/);
  });

  it("reports JSON that is not an array of models", () => {
    expect([...catalogOf("{not json").problems.values()]).toEqual(["BYOK_MODELS is not valid JSON"]);
    expect([...catalogOf("{}").problems.values()][0]).toMatch(/JSON array/);
  });
});
