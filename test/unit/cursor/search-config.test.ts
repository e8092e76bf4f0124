// BYOK_SEARCH validation (src/cursor/search/search-config.ts): defaults, the per-provider
// requirements, the upstream address guard, and problems reported without the key.
import { describe, expect, it } from "vitest";
import { searchSettingFromEnv } from "../../../src/cursor/search/search-config.ts";

const settingOf = (value: unknown, allowPrivate = false) =>
  searchSettingFromEnv({
    BYOK_SEARCH: typeof value === "string" ? value : JSON.stringify(value),
    BYOK_ALLOW_PRIVATE_UPSTREAMS: String(allowPrivate),
  });

describe("BYOK_SEARCH", () => {
  it("is off, without a problem, when it is not set", () => {
    expect(searchSettingFromEnv({})).toEqual({});
    expect(settingOf("  ")).toEqual({});
  });

  it("fills in the provider's public URL and the defaults", () => {
    expect(settingOf({ provider: "brave", api_key: "brave-secret-1" })).toEqual({
      config: {
        provider: "brave",
        baseUrl: "https://api.search.brave.com/res/v1",
        apiKey: "brave-secret-1",
        maxResults: 5,
        timeoutMs: 10_000,
      },
    });
    expect(settingOf({ provider: "tavily", api_key: "k1" }).config?.baseUrl).toBe("https://api.tavily.com");
    expect(settingOf({ provider: "exa", api_key: "k2" }).config?.baseUrl).toBe("https://api.exa.ai");
  });

  it("takes base_url, max_results, timeout_ms and headers as configured", () => {
    const setting = settingOf(
      { provider: "searxng", base_url: "http://127.0.0.1:8888/", max_results: 12, timeout_ms: 3000, headers: { "x-proxy-token": "p" } },
      true,
    );
    expect(setting.config).toEqual({
      provider: "searxng",
      baseUrl: "http://127.0.0.1:8888",
      maxResults: 12,
      timeoutMs: 3000,
      headers: { "x-proxy-token": "p" },
    });
  });

  it("reports what is wrong without the key", () => {
    const secret = "tvly-very-secret-key";
    const problems = [
      settingOf("{not json"),
      settingOf({ provider: "google", api_key: secret }),
      settingOf({ provider: "tavily" }),
      settingOf({ provider: "searxng" }),
      settingOf({ provider: "tavily", api_key: secret, max_results: 50 }),
      settingOf({ provider: "tavily", apiKey: secret }),
      settingOf({ provider: "tavily", api_key: secret, base_url: "http://127.0.0.1:9000" }),
    ].map((s) => {
      expect(s.config).toBeUndefined();
      return s.problem ?? "";
    });
    expect(problems[0]).toBe("BYOK_SEARCH is not valid JSON");
    expect(problems[1]).toMatch(/^BYOK_SEARCH is misconfigured: provider: /);
    expect(problems[2]).toBe('BYOK_SEARCH: provider "tavily" needs an api_key');
    expect(problems[3]).toBe('BYOK_SEARCH: provider "searxng" is self-hosted and needs a base_url');
    expect(problems[4]).toMatch(/max_results/);
    expect(problems[5]).toMatch(/apiKey/);
    expect(problems[6]).toMatch(/BYOK_ALLOW_PRIVATE_UPSTREAMS/);
    expect(problems.join("\n")).not.toContain(secret);
  });
});
