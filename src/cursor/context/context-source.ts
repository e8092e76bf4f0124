// Where a conversation action carries its request context (docs/request-context.md):
// inline on the action itself, by reference in request_context_parts, or both.
import type { ConversationAction, RequestContext, RequestContextPartReferences } from "../../proto/gen/agent/v1/agent_pb.ts";

export interface ContextSource {
  /** `request_context` of a user message, a resume or a user context injection. */
  inline?: RequestContext;
  /** Blob ids of the rules, skills, subagents and MCP parts, and the inline dynamic_context. */
  parts?: RequestContextPartReferences;
}

/** The action's request context, or undefined when it carries none. */
export function contextSourceOf(action: ConversationAction | undefined): ContextSource | undefined {
  const inline = inlineContext(action);
  const parts = action?.requestContextParts;
  if (!inline && !parts) return undefined;
  return { ...(inline && { inline }), ...(parts && { parts }) };
}

function inlineContext(action: ConversationAction | undefined): RequestContext | undefined {
  switch (action?.action.case) {
    case "userMessageAction":
    case "resumeAction":
      return action.action.value.requestContext;
    case "injectContextAction": {
      const payload = action.action.value.payload;
      return payload.case === "userContext" ? payload.value.requestContext : undefined;
    }
    default:
      return undefined;
  }
}
