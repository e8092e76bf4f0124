// OpenAI Chat Completions: where the request goes, how it authenticates, its
// body and its stream mapper; the shared stream loop does the rest.
import { openAiKeyHeaders } from "./endpoint.ts";
import { buildChatRequestBody } from "./openai-chat-request.ts";
import { ChatStreamParser } from "./openai-chat-stream.ts";
import type { WireApi } from "./stream-loop.ts";

export const OPENAI_CHAT_API: WireApi = {
  path: "/chat/completions",
  headers: (model) => openAiKeyHeaders(model.baseUrl, model.apiKey),
  body: buildChatRequestBody,
  mapper: (secrets) => new ChatStreamParser(secrets),
};
