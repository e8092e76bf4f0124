// Cursor's client-held history format: one JSON model message per root blob
// (docs/protocol.md#root-messages). We also embed our exact message under providerOptions.byokEdge so
// a conversation recovered from the client replays byte for byte.
import type { ChatMessage } from "../provider/types.ts";

type RootPart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool-result"; toolCallId: string; toolName: string; result: string; isError?: boolean };

export interface RootMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | RootPart[];
  providerOptions?: { byokEdge?: OwnMessage } & Record<string, unknown>;
}

/** Our exact message and its idempotency key, carried inside the client's copy. */
interface OwnMessage {
  message: ChatMessage;
  key?: string;
}

export function toRootMessage(message: ChatMessage, key?: string | null): RootMessage {
  const providerOptions = { byokEdge: key ? { message, key } : { message } };
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content, providerOptions };
    case "assistant": {
      const parts: RootPart[] = [];
      if (message.reasoning) parts.push({ type: "reasoning", text: message.reasoning });
      if (message.content) parts.push({ type: "text", text: message.content });
      for (const call of message.toolCalls ?? []) {
        parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, args: parseArgs(call.arguments) });
      }
      return { role: "assistant", content: parts, providerOptions };
    }
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.name,
            result: message.content,
            ...(message.isError && { isError: true }),
          },
        ],
        providerOptions,
      };
  }
}

/** Reads a root message written by us (exactly) or by another Cursor backend (best effort). */
export function fromRootMessage(root: RootMessage): { message: ChatMessage; key?: string }[] {
  const own = root.providerOptions?.byokEdge;
  if (own?.message && typeof own.message === "object" && "role" in own.message) {
    return [own.key ? { message: own.message, key: own.key } : { message: own.message }];
  }
  return fromForeignRoot(root).map((message) => ({ message }));
}

function fromForeignRoot(root: RootMessage): ChatMessage[] {
  const parts = typeof root.content === "string" ? [{ type: "text" as const, text: root.content }] : root.content;
  const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  switch (root.role) {
    case "system":
    case "user":
      return [{ role: root.role, content: text }];
    case "assistant": {
      const reasoning = parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])).join("");
      const toolCalls = parts.flatMap((p) =>
        p.type === "tool-call"
          ? [{ id: p.toolCallId, name: p.toolName, arguments: typeof p.args === "string" ? p.args : JSON.stringify(p.args ?? {}) }]
          : [],
      );
      return [
        {
          role: "assistant",
          content: text,
          ...(reasoning && { reasoning }),
          ...(toolCalls.length > 0 && { toolCalls }),
        },
      ];
    }
    case "tool":
      return parts.flatMap((p) =>
        p.type === "tool-result"
          ? [{ role: "tool" as const, toolCallId: p.toolCallId, name: p.toolName, content: p.result, ...(p.isError && { isError: true }) }]
          : [],
      );
  }
}

function parseArgs(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
