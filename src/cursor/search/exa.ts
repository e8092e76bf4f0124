// Exa: POST {base}/search {query, numResults, contents: {highlights: true}}, key
// in x-api-key; hits in results[] {title, url, highlights[], summary, text}.
import { z } from "zod";
import { parseAnswer } from "./answer-shape.ts";
import type { SearchAdapter } from "./search-types.ts";

const LABEL = "Exa";

const ExaAnswer = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string().nullish(),
      highlights: z.array(z.string()).nullish(),
      summary: z.string().nullish(),
      text: z.string().nullish(),
    }),
  ),
});

export const exaSearch: SearchAdapter = {
  label: LABEL,
  defaultBaseUrl: "https://api.exa.ai",
  needsKey: true,
  request(config, query) {
    return {
      method: "POST",
      url: `${config.baseUrl}/search`,
      headers: { "content-type": "application/json", accept: "application/json", "x-api-key": config.apiKey ?? "" },
      // Highlights are the query-relevant sentences: a snippet, not the whole page text.
      body: JSON.stringify({ query, numResults: config.maxResults, contents: { highlights: true } }),
    };
  },
  hits(answer) {
    return parseAnswer(LABEL, ExaAnswer, answer).results.map((r) => ({
      title: r.title ?? "",
      url: r.url ?? "",
      snippet: (r.highlights ?? []).join(" … ") || r.summary || r.text || "",
    }));
  },
};
