// OpenAI Responses: where the request goes, how it authenticates, its body and
// its stream mapper; the shared stream loop does the rest. Stateless
// (`store: false`): reasoning comes back encrypted and is replayed by the caller.
import { openAiKeyHeaders } from "./endpoint.ts";
import { buildResponsesRequestBody } from "./openai-responses-request.ts";
import { ResponsesStreamParser } from "./openai-responses-stream.ts";
import type { WireApi } from "./stream-loop.ts";

export const OPENAI_RESPONSES_API: WireApi = {
  path: "/responses",
  headers: (model) => openAiKeyHeaders(model.baseUrl, model.apiKey),
  body: buildResponsesRequestBody,
  mapper: (secrets) => new ResponsesStreamParser(secrets),
};
