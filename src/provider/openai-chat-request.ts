// The Chat Completions request body. Built in a fixed key order from the input
// alone, so the same conversation serializes to the same bytes (prompt caching).
import { isAzureOpenAi } from "./endpoint.ts";
import { dataUri, toolImagesCaption } from "./images.ts";
import type { ChatMessage, ImagePart, ModelRequest, ToolDefinition } from "./types.ts";
import { usageSafeBody } from "./usage-keys.ts";

type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

type ChatApiMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | {
      role: "assistant";
      content: string | null;
      reasoning_content?: string;
      tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

export function buildChatRequestBody(request: ModelRequest): string {
  const { model } = request;
  const body: Record<string, unknown> = {
    model: model.model,
    messages: toChatApiMessages(request.messages, requiresReasoningReplay(model)),
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toChatApiTool);
  body.stream = true;
  body.stream_options = { include_usage: true };
  if (model.maxOutputTokens !== undefined) body.max_completion_tokens = model.maxOutputTokens;
  if (model.reasoningEffort) body.reasoning_effort = model.reasoningEffort;
  // Only OpenAI routes by prompt_cache_key; strict compatible servers (Azure OpenAI's dated
  // api-versions among them: "Unrecognized request argument") reject unknown fields.
  if (request.cacheKey && isOpenAi(model)) body.prompt_cache_key = request.cacheKey;
  // Spread (not Object.assign) so a "__proto__" key in operator JSON stays a plain key; the keys
  // accounting relies on stay ours even in a row stored before they were refused (docs/hosting.md#limits).
  return JSON.stringify({ ...body, ...usageSafeBody(model.extraBody) });
}

/**
 * DeepSeek and Kimi (Moonshot) thinking models reject a history in which an
 * assistant message lacks reasoning_content, even for turns without thinking.
 */
function requiresReasoningReplay(model: ModelRequest["model"]): boolean {
  return /deepseek|kimi|moonshot/i.test(`${model.model} ${model.baseUrl}`);
}

function isOpenAi(model: ModelRequest["model"]): boolean {
  if (isAzureOpenAi(model.baseUrl)) return false;
  return /(^|\.)openai\.com$/i.test(safeHost(model.baseUrl)) || /^(gpt|o\d)/i.test(model.model);
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

/**
 * A tool's output is text only, so the images of a round's results follow its
 * tool messages as one user message (docs/providers.md#images).
 */
function toChatApiMessages(history: ChatMessage[], alwaysReasoning: boolean): ChatApiMessage[] {
  const out: ChatApiMessage[] = [];
  let toolImages: ChatContentPart[] = [];
  const flush = () => {
    if (toolImages.length > 0) out.push({ role: "user", content: toolImages });
    toolImages = [];
  };
  for (const message of history) {
    if (message.role !== "tool") flush();
    out.push(toChatApiMessage(message, alwaysReasoning));
    if (message.role === "tool" && message.images?.length) {
      toolImages.push({ type: "text", text: toolImagesCaption(message) }, ...message.images.map(imagePart));
    }
  }
  flush();
  return out;
}

function imagePart(image: ImagePart): ChatContentPart {
  return { type: "image_url", image_url: { url: dataUri(image) } };
}

function toChatApiMessage(message: ChatMessage, alwaysReasoning: boolean): ChatApiMessage {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user": {
      // Text-only messages keep their plain string form (and their bytes).
      if (!message.images?.length) return { role: "user", content: message.content };
      const text: ChatContentPart[] = message.content ? [{ type: "text", text: message.content }] : [];
      return { role: "user", content: [...text, ...message.images.map(imagePart)] };
    }
    case "assistant": {
      const toolCalls = message.toolCalls ?? [];
      const out: ChatApiMessage = {
        role: "assistant",
        // Some providers reject "" next to tool calls; null is the API's "no text".
        content: toolCalls.length > 0 && message.content === "" ? null : message.content,
      };
      // DeepSeek and Kimi require the reasoning back on tool turns, even when empty.
      if (typeof message.reasoning === "string") out.reasoning_content = message.reasoning;
      else if (alwaysReasoning) out.reasoning_content = "";
      if (toolCalls.length > 0) {
        out.tool_calls = toolCalls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return out;
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

function toChatApiTool(tool: ToolDefinition) {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
