// Anthropic Messages: where the request goes, how it authenticates, its body
// and its stream mapper; the shared stream loop does the rest.
import { buildAnthropicRequestBody } from "./anthropic-request.ts";
import { AnthropicStreamParser } from "./anthropic-stream.ts";
import type { WireApi } from "./stream-loop.ts";

/** The Messages API version this provider speaks (event and block shapes). */
const ANTHROPIC_VERSION = "2023-06-01";

// Anthropic's error bodies ({"type":"error","error":{"type","message"}}) are read by classifyHttpFailure.
export const ANTHROPIC_API: WireApi = {
  path: "/messages",
  // No x-api-key for a model without a key (a local server with an Anthropic endpoint).
  headers: (model) => ({ ...(model.apiKey !== "" && { "x-api-key": model.apiKey }), "anthropic-version": ANTHROPIC_VERSION }),
  body: buildAnthropicRequestBody,
  mapper: (secrets) => new AnthropicStreamParser(secrets),
};
