// SearXNG (self-hosted): GET {base}/search?q=…&format=json; it has no key of its
// own (an api_key goes as a bearer token to a proxy in front); hits in results[] {title, url, content}.
import { z } from "zod";
import { parseAnswer } from "./answer-shape.ts";
import type { SearchAdapter } from "./search-types.ts";

const LABEL = "SearXNG";

const SearxngAnswer = z.object({
  results: z.array(z.object({ title: z.string().nullish(), url: z.string().nullish(), content: z.string().nullish() })),
});

export const searxngSearch: SearchAdapter = {
  label: LABEL,
  needsKey: false,
  request(config, query) {
    // SearXNG has no result count parameter; search.ts keeps the first max_results.
    const params = new URLSearchParams({ q: query, format: "json" });
    return {
      method: "GET",
      url: `${config.baseUrl}/search?${params}`,
      headers: { accept: "application/json", ...(config.apiKey && { authorization: `Bearer ${config.apiKey}` }) },
    };
  },
  hits(answer) {
    return parseAnswer(LABEL, SearxngAnswer, answer).results.map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: r.content ?? "",
    }));
  },
};
