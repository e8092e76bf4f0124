// The Responses API request body. Built in a fixed key order from the input
// alone, so the same conversation serializes to the same bytes (prompt caching).
// Stateless (`store: false`): the whole conversation goes in `input` every time,
// with the encrypted reasoning items of earlier responses replayed unchanged.
import { isAzureOpenAi } from "./endpoint.ts";
import { dataUri, toolImagesCaption } from "./images.ts";
import type { ChatMessage, ImagePart, ModelRequest, ToolDefinition } from "./types.ts";
import { usageSafeBody } from "./usage-keys.ts";

export const RESPONSES_PROVIDER = "openai-responses";

/** A reasoning item exactly as the provider sent it (`{type:"reasoning", id, summary, encrypted_content, ...}`). */
export type ReasoningItem = Record<string, unknown> & { type: "reasoning" };

type InputContent = { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail: "auto" };

type ResponsesInputItem =
  | { role: "system" | "user"; content: InputContent[] }
  | ReasoningItem
  | { type: "message"; role: "assistant"; content: [{ type: "output_text"; text: string }] }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | { type: "custom_tool_call"; call_id: string; name: string; input: string }
  | { type: "custom_tool_call_output"; call_id: string; output: string };

/** OpenAI model ids that reason even without an explicit effort (o-series, gpt-5 family). */
const REASONING_MODEL = /^(o\d|gpt-5)/i;

export function buildResponsesRequestBody(request: ModelRequest): string {
  const { model } = request;
  const body: Record<string, unknown> = {
    model: model.model,
    input: toResponsesInput(request.messages),
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toResponsesTool);
  body.stream = true;
  // Nothing is kept upstream; reasoning comes back encrypted so it can be replayed.
  // Only reasoning models accept the include (others answer 400), so it goes with them.
  body.store = false;
  if (model.reasoningEffort || REASONING_MODEL.test(model.model)) body.include = ["reasoning.encrypted_content"];
  if (model.maxOutputTokens !== undefined) body.max_output_tokens = model.maxOutputTokens;
  if (model.reasoningEffort) body.reasoning = { effort: model.reasoningEffort, summary: "auto" };
  // Not to Azure OpenAI, as in the Chat request: its dated api-versions refuse unknown arguments.
  if (request.cacheKey && !isAzureOpenAi(model.baseUrl)) body.prompt_cache_key = request.cacheKey;
  // Spread (not Object.assign) so a "__proto__" key in operator JSON stays a plain key; the keys
  // accounting relies on stay ours even in a row stored before they were refused (docs/hosting.md#limits).
  return JSON.stringify({ ...body, ...usageSafeBody(model.extraBody) });
}

/**
 * A function_call_output is taken as text everywhere, so the images of a round's
 * results follow its outputs as one user message (docs/providers.md#images).
 */
function toResponsesInput(history: ChatMessage[]): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
  // A custom call's output must be a custom_tool_call_output (docs/code-mode.md#cursor-runs).
  const customCalls = new Set(
    history.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []).filter((c) => c.custom).map((c) => c.id)),
  );
  let toolImages: InputContent[] = [];
  const flush = () => {
    if (toolImages.length > 0) out.push({ role: "user", content: toolImages });
    toolImages = [];
  };
  for (const message of history) {
    if (message.role !== "tool") flush();
    out.push(...toResponsesInputItems(message, customCalls));
    if (message.role === "tool" && message.images?.length) {
      toolImages.push({ type: "input_text", text: toolImagesCaption(message) }, ...message.images.map(inputImage));
    }
  }
  flush();
  return out;
}

function inputImage(image: ImagePart): InputContent {
  return { type: "input_image", image_url: dataUri(image), detail: "auto" };
}

function toResponsesInputItems(message: ChatMessage, customCalls: ReadonlySet<string>): ResponsesInputItem[] {
  switch (message.role) {
    case "system":
      // System prompts stay `system` (not `developer`): every Responses-compatible API accepts it.
      return [{ role: "system", content: [{ type: "input_text", text: message.content }] }];
    case "user": {
      const text: InputContent[] = message.content || !message.images?.length ? [{ type: "input_text", text: message.content }] : [];
      return [{ role: "user", content: [...text, ...(message.images ?? []).map(inputImage)] }];
    }
    case "assistant": {
      const items: ResponsesInputItem[] = [];
      if (message.replay?.provider === RESPONSES_PROVIDER) items.push(...reasoningItems(message.replay.data));
      if (message.content !== "") {
        items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: message.content }] });
      }
      for (const call of message.toolCalls ?? []) {
        items.push(
          call.custom
            ? { type: "custom_tool_call", call_id: call.id, name: call.name, input: call.arguments }
            : { type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments },
        );
      }
      return items;
    }
    case "tool":
      // The API has no error flag on outputs; the text says what went wrong.
      return [
        {
          type: customCalls.has(message.toolCallId) ? "custom_tool_call_output" : "function_call_output",
          call_id: message.toolCallId,
          output: message.content,
        },
      ];
  }
}

/** The stored reasoning items, unchanged; anything that is not one is skipped. */
function reasoningItems(data: unknown): ReasoningItem[] {
  if (!Array.isArray(data)) return [];
  return data.filter(isReasoningItem);
}

export function isReasoningItem(value: unknown): value is ReasoningItem {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value as { type?: unknown }).type === "reasoning";
}

function toResponsesTool(tool: ToolDefinition) {
  if (tool.freeform) {
    return { type: "custom", name: tool.name, description: tool.description, format: { type: "grammar", ...tool.freeform } };
  }
  return { type: "function", name: tool.name, description: tool.description, parameters: tool.parameters, strict: false };
}
