// Tavily: POST {base}/search {query, max_results}, key as a bearer token; hits
// in results[] {title, url, content}.
import { z } from "zod";
import { parseAnswer } from "./answer-shape.ts";
import type { SearchAdapter } from "./search-types.ts";

const LABEL = "Tavily";

const TavilyAnswer = z.object({
  results: z.array(z.object({ title: z.string().nullish(), url: z.string().nullish(), content: z.string().nullish() })),
});

export const tavilySearch: SearchAdapter = {
  label: LABEL,
  defaultBaseUrl: "https://api.tavily.com",
  needsKey: true,
  request(config, query) {
    return {
      method: "POST",
      url: `${config.baseUrl}/search`,
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${config.apiKey ?? ""}` },
      body: JSON.stringify({ query, max_results: config.maxResults }),
    };
  },
  hits(answer) {
    return parseAnswer(LABEL, TavilyAnswer, answer).results.map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: r.content ?? "",
    }));
  },
};
