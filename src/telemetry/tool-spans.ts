// An execute_tool span's name and attributes (docs/telemetry.md#traces), by the OpenTelemetry
// GenAI conventions: a tool call of a Cursor run, a code-mode cell, a cell's own tool call.
// The tool's name and ids only, never its arguments or its result.
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
} from "@opentelemetry/semantic-conventions/incubating";
import { type SpanScope, type TraceSpan, toolSpanId } from "./run-trace.ts";

export function toolSpanName(toolName: string): string {
  return `execute_tool ${toolName}`;
}

/** `conversationId`: the Cursor conversation, or a standalone code-mode session's id. */
export function toolAttributes(toolName: string, toolCallId: string, conversationId: string): Attributes {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
    [ATTR_GEN_AI_TOOL_NAME]: toolName,
    [ATTR_GEN_AI_TOOL_CALL_ID]: toolCallId,
    [ATTR_GEN_AI_CONVERSATION_ID]: conversationId,
  };
}

/** A tool call's span under `scope`; its id fixed by request and call, so a subagent the call starts hangs under it. */
export function toolCallSpan(
  scope: SpanScope | undefined,
  call: { name: string; id: string; requestId: string; conversationId: string },
): TraceSpan | undefined {
  return scope?.child(toolSpanName(call.name), toolAttributes(call.name, call.id, call.conversationId), {
    spanId: toolSpanId(call.requestId, call.id),
  });
}
