// Brave Search: GET {base}/web/search?q=…&count=…, key in X-Subscription-Token;
// hits in web.results[] {title, url, description, extra_snippets}.
import { z } from "zod";
import { parseAnswer } from "./answer-shape.ts";
import type { SearchAdapter } from "./search-types.ts";

const LABEL = "Brave Search";

const BraveAnswer = z.object({
  web: z
    .object({
      results: z.array(
        z.object({
          title: z.string().nullish(),
          url: z.string().nullish(),
          description: z.string().nullish(),
          extra_snippets: z.array(z.string()).nullish(),
        }),
      ),
    })
    .nullish(),
});

export const braveSearch: SearchAdapter = {
  label: LABEL,
  defaultBaseUrl: "https://api.search.brave.com/res/v1",
  needsKey: true,
  request(config, query) {
    const params = new URLSearchParams({ q: query, count: String(config.maxResults) });
    return {
      method: "GET",
      url: `${config.baseUrl}/web/search?${params}`,
      headers: { accept: "application/json", "x-subscription-token": config.apiKey ?? "" },
    };
  },
  hits(answer) {
    // No `web` section means no web results.
    const results = parseAnswer(LABEL, BraveAnswer, answer).web?.results ?? [];
    return results.map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: r.description || (r.extra_snippets ?? []).join(" "),
    }));
  },
};
