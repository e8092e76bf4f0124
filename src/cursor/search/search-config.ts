// BYOK_SEARCH: the optional web search backend, validated once per isolate. Absent
// means no WebSearch tool; a bad value is reported (without its key) and search stays off.
import { z } from "zod";
import { describeIssues, issuesOf } from "../../core/zod-issues.ts";
import { SEARCH_ADAPTERS } from "./search.ts";
import type { SearchConfig } from "./search-types.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";

const DEFAULT_MAX_RESULTS = 5;
const DEFAULT_TIMEOUT_MS = 10_000;

const searchSchema = z
  .object({
    provider: z.enum(["brave", "tavily", "exa", "searxng"]),
    base_url: z.string().min(1).optional(),
    api_key: z.string().min(1).optional(),
    // 20 is what Brave and Tavily serve at most in one answer.
    max_results: z.number().int().min(1).max(20).optional(),
    timeout_ms: z.number().int().min(1_000).max(60_000).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  })
  // A misspelt field (apiKey, baseUrl) would otherwise be ignored without a word.
  .strict();

/** The backend, or why BYOK_SEARCH cannot be used; neither when it is not set. */
export interface SearchSetting {
  config?: SearchConfig;
  problem?: string;
}

function parseSearchSetting(raw: string | undefined, allowPrivateUpstreams: boolean): SearchSetting {
  if (!raw || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { problem: "BYOK_SEARCH is not valid JSON" };
  }
  const result = searchSchema.safeParse(parsed);
  if (!result.success) {
    // Paths and messages only: zod issues never echo the offending values here.
    const why = describeIssues(issuesOf(result.error, { topLevel: "BYOK_SEARCH" }));
    return { problem: `BYOK_SEARCH is misconfigured: ${why}` };
  }
  const entry = result.data;
  const adapter = SEARCH_ADAPTERS[entry.provider];
  const baseUrl = entry.base_url ?? adapter.defaultBaseUrl;
  if (!baseUrl) return { problem: `BYOK_SEARCH: provider "${entry.provider}" is self-hosted and needs a base_url` };
  if (adapter.needsKey && !entry.api_key) return { problem: `BYOK_SEARCH: provider "${entry.provider}" needs an api_key` };
  const urlProblem = checkUpstreamUrl(baseUrl, allowPrivateUpstreams);
  if (urlProblem) return { problem: `BYOK_SEARCH: ${urlProblem}` };
  return {
    config: {
      provider: entry.provider,
      baseUrl: baseUrl.replace(/\/+$/, ""),
      ...(entry.api_key !== undefined && { apiKey: entry.api_key }),
      maxResults: entry.max_results ?? DEFAULT_MAX_RESULTS,
      timeoutMs: entry.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      ...(entry.headers !== undefined && { headers: entry.headers }),
    },
  };
}

const cache = new Map<string, SearchSetting>();

/** Parsed once per distinct configuration string (env is fixed per isolate). */
export function searchSettingFromEnv(env: { BYOK_SEARCH?: string; BYOK_ALLOW_PRIVATE_UPSTREAMS?: string }): SearchSetting {
  const allowPrivate = env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true";
  const key = `${allowPrivate}\u0000${env.BYOK_SEARCH ?? ""}`;
  let setting = cache.get(key);
  if (!setting) {
    setting = parseSearchSetting(env.BYOK_SEARCH, allowPrivate);
    if (setting.problem) console.warn(`byok-edge: ${setting.problem}; web search is off`);
    cache.set(key, setting);
  }
  return setting;
}
