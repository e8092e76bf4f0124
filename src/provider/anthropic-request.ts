// The Anthropic Messages request body. Built in a fixed key order from the input
// alone, so the same conversation serializes to the same bytes, and a grown
// conversation keeps the bytes of every earlier message (prompt caching).
import type { ChatMessage, ImagePart, ModelRequest, ToolCallPart, ToolDefinition } from "./types.ts";
import { usageSafeBody } from "./usage-keys.ts";

/** The API requires max_tokens; enough for a long answer or a large tool call. */
const DEFAULT_MAX_TOKENS = 8192;
/** Room left for the answer itself when max_tokens has to be raised above a thinking budget. */
const THINKING_ANSWER_TOKENS = 4096;
/** The API's smallest accepted budget_tokens. */
const MIN_THINKING_BUDGET = 1024;

const MEDIUM_THINKING_BUDGET = 12_000;
/** reasoning_effort names mapped to thinking budgets; a number is taken as the budget itself. */
const THINKING_BUDGETS: Record<string, number> = {
  minimal: MIN_THINKING_BUDGET,
  low: 4096,
  medium: MEDIUM_THINKING_BUDGET,
  high: 24_000,
};
const THINKING_OFF = new Set(["none", "off", "disabled"]);

const EPHEMERAL = { type: "ephemeral" } as const;
/** Tool ids the API accepts; ids from other providers (e.g. Kimi's "functions.ls:0") are rewritten. */
const TOOL_ID_INVALID = /[^A-Za-z0-9_-]/g;

type Block = Record<string, unknown>;
interface ApiMessage {
  role: "user" | "assistant";
  content: Block[];
}

export function buildAnthropicRequestBody(request: ModelRequest): string {
  const { model } = request;
  const system = request.messages.flatMap((m) => (m.role === "system" ? [m.content] : [])).join("\n\n");
  const messages = toApiMessages(request.messages);
  markLastMessage(messages);

  const budget = lastToolTurnLacksThinking(messages) ? undefined : thinkingBudget(model.reasoningEffort);
  const body: Record<string, unknown> = { model: model.model, max_tokens: maxTokensWith(model.maxOutputTokens, budget) };
  if (system) body.system = [{ type: "text", text: system, cache_control: EPHEMERAL }];
  body.messages = messages;
  if (request.tools.length > 0) body.tools = request.tools.map((tool, i, all) => toApiTool(tool, i === all.length - 1));
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  body.stream = true;
  // Spread (not Object.assign) so a "__proto__" key in operator JSON stays a plain key; the keys
  // accounting relies on stay ours even in a row stored before they were refused (docs/hosting.md#limits).
  return JSON.stringify({ ...body, ...usageSafeBody(model.extraBody) });
}

/** The `max_tokens` the request sends: the most the answer may take (the budget reserves it, docs/hosting.md#limits). */
export function anthropicMaxTokens(request: ModelRequest): number {
  const budget = lastToolTurnLacksThinking(toApiMessages(request.messages)) ? undefined : thinkingBudget(request.model.reasoningEffort);
  return maxTokensWith(request.model.maxOutputTokens, budget);
}

function maxTokensWith(maxOutputTokens: number | undefined, thinking: number | undefined): number {
  const maxTokens = maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  // budget_tokens must be below max_tokens; the budget is what the operator asked for, so max_tokens gives way.
  return thinking !== undefined && maxTokens <= thinking ? thinking + THINKING_ANSWER_TOKENS : maxTokens;
}

/** The thinking budget for a reasoning_effort, or undefined for no thinking. Unknown names get "medium". */
function thinkingBudget(effort: string | undefined): number | undefined {
  if (effort === undefined) return undefined;
  const name = effort.trim().toLowerCase();
  if (!name || THINKING_OFF.has(name)) return undefined;
  if (/^\d+$/.test(name)) return Math.max(MIN_THINKING_BUDGET, Number(name));
  return THINKING_BUDGETS[name] ?? MEDIUM_THINKING_BUDGET;
}

/**
 * Consecutive user texts and tool results share one user message (tool results first:
 * the API wants them right after the assistant's tool_use, in one turn). System
 * messages go to the top-level `system`. Assistant messages with nothing to send are dropped.
 */
function toApiMessages(history: ChatMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  const userMessage = (): ApiMessage => {
    const last = out.at(-1);
    if (last?.role === "user") return last;
    const created: ApiMessage = { role: "user", content: [] };
    out.push(created);
    return created;
  };
  for (const message of history) {
    switch (message.role) {
      case "system":
        break;
      case "user": {
        // Images first, as Anthropic recommends; the API rejects empty text blocks.
        const { content } = userMessage();
        for (const image of message.images ?? []) content.push(imageBlock(image));
        if (message.content) content.push({ type: "text", text: message.content });
        break;
      }
      case "tool": {
        const { content } = userMessage();
        const firstText = content.findIndex((block) => block.type !== "tool_result");
        content.splice(firstText === -1 ? content.length : firstText, 0, toolResultBlock(message));
        break;
      }
      case "assistant": {
        const content = assistantBlocks(message);
        if (content.length > 0) out.push({ role: "assistant", content });
        break;
      }
    }
  }
  return out;
}

function toolResultBlock(message: Extract<ChatMessage, { role: "tool" }>): Block {
  const block: Block = { type: "tool_result", tool_use_id: toolUseId(message.toolCallId) };
  // An error result must say something; an empty successful one may leave content out.
  const text = message.content || (message.isError ? "The tool failed without output." : "");
  if (message.images?.length) {
    // A tool result takes image blocks next to its text (docs/providers.md#images).
    block.content = [...(text ? [{ type: "text", text }] : []), ...message.images.map(imageBlock)];
  } else if (text) {
    block.content = text;
  }
  if (message.isError) block.is_error = true;
  return block;
}

function imageBlock(image: ImagePart): Block {
  return { type: "image", source: { type: "base64", media_type: image.mimeType, data: image.data } };
}

function assistantBlocks(message: Extract<ChatMessage, { role: "assistant" }>): Block[] {
  const blocks: Block[] = message.replay?.provider === "anthropic" ? replayedThinking(message.replay.data) : [];
  // Reasoning from other providers has no signature and cannot go back to Anthropic.
  if (message.content) blocks.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push(toolUseBlock(call));
  return blocks;
}

/** The thinking blocks exactly as Anthropic sent them; anything else in the replay is ignored. */
function replayedThinking(data: unknown): Block[] {
  if (!Array.isArray(data)) return [];
  return data.filter(
    (block): block is Block =>
      isRecord(block) &&
      ((block.type === "thinking" && typeof block.signature === "string") ||
        (block.type === "redacted_thinking" && typeof block.data === "string")),
  );
}

function toolUseBlock(call: ToolCallPart): Block {
  return { type: "tool_use", id: toolUseId(call.id), name: call.name, input: parseInput(call.arguments) };
}

/** The arguments as an object; empty or invalid JSON (the run already reported it) becomes {}. */
function parseInput(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function toolUseId(id: string): string {
  return id.replace(TOOL_ID_INVALID, "_") || "tool_call";
}

function toApiTool(tool: ToolDefinition, last: boolean): Block {
  const out: Block = { name: tool.name, description: tool.description, input_schema: tool.parameters };
  if (last) out.cache_control = EPHEMERAL;
  return out;
}

/**
 * Puts the moving cache breakpoint on the last cacheable block of the last message.
 * Only that message changes when the conversation grows; earlier messages keep their bytes.
 * Thinking blocks and empty text cannot carry cache_control.
 */
function markLastMessage(messages: ApiMessage[]): void {
  const last = messages.at(-1);
  if (!last) return;
  for (let i = last.content.length - 1; i >= 0; i--) {
    const block = last.content[i];
    if (!block || block.type === "thinking" || block.type === "redacted_thinking") continue;
    if (block.type === "text" && !block.text) continue;
    last.content[i] = { ...block, cache_control: EPHEMERAL };
    return;
  }
}

/**
 * With thinking on, the API rejects a tool round whose assistant message does not start
 * with a thinking block ("a final assistant message must start with a thinking block").
 * That happens when the round was started by another provider or without thinking;
 * such a request is sent without thinking instead of failing.
 */
function lastToolTurnLacksThinking(messages: ApiMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== "user" || !last.content.some((block) => block.type === "tool_result")) return false;
  const assistant = messages.at(-2);
  if (assistant?.role !== "assistant") return false;
  const first = assistant.content[0]?.type;
  return first !== "thinking" && first !== "redacted_thinking";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
