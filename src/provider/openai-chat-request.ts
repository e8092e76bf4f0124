// The Chat Completions request body. Built in a fixed key order from the input
// alone, so the same conversation serializes to the same bytes (prompt caching).
import type { ChatMessage, ModelRequest, ToolDefinition } from "./types.ts";

type ChatApiMessage =
  | { role: "system" | "user"; content: string }
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
    messages: request.messages.map((m) => toChatApiMessage(m, requiresReasoningReplay(model))),
  };
  if (request.tools.length > 0) body.tools = request.tools.map(toChatApiTool);
  body.stream = true;
  body.stream_options = { include_usage: true };
  if (model.maxOutputTokens !== undefined) body.max_completion_tokens = model.maxOutputTokens;
  if (model.reasoningEffort) body.reasoning_effort = model.reasoningEffort;
  // Only OpenAI routes by prompt_cache_key; strict compatible servers reject unknown fields.
  if (request.cacheKey && isOpenAi(model)) body.prompt_cache_key = request.cacheKey;
  // Spread (not Object.assign) so a "__proto__" key in operator JSON stays a plain key.
  return JSON.stringify({ ...body, ...model.extraBody });
}

/**
 * DeepSeek and Kimi (Moonshot) thinking models reject a history in which an
 * assistant message lacks reasoning_content, even for turns without thinking.
 */
function requiresReasoningReplay(model: ModelRequest["model"]): boolean {
  return /deepseek|kimi|moonshot/i.test(`${model.model} ${model.baseUrl}`);
}

function isOpenAi(model: ModelRequest["model"]): boolean {
  return /(^|\.)openai\.com$/i.test(safeHost(model.baseUrl)) || /^(gpt|o\d)/i.test(model.model);
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "";
  }
}

function toChatApiMessage(message: ChatMessage, alwaysReasoning = false): ChatApiMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
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
