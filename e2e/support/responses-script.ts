// OpenAI Responses API streams for the fake provider (test/support/fake-provider-server.ts):
// the SSE events Codex reads, each `event: <type>` with its JSON `data`.
import type { ScriptedResponse, Step } from "../../test/support/fake-provider-types.ts";

const USAGE = { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 };

function event(type: string, body: Record<string, unknown>): Step {
  return { raw: `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n` };
}

function response(id: string, items: Record<string, unknown>[]): ScriptedResponse {
  return {
    steps: [
      event("response.created", { response: { id } }),
      ...items.map((item) => event("response.output_item.done", { item })),
      event("response.completed", { response: { id, usage: USAGE } }),
    ],
  };
}

/** The model calls a freeform (custom) tool, as it calls Codex's `exec` with JavaScript source. */
export function customToolCall(responseId: string, callId: string, name: string, input: string): ScriptedResponse {
  return response(responseId, [{ type: "custom_tool_call", id: `ctc_${callId}`, call_id: callId, name, input }]);
}

export function assistantMessage(responseId: string, text: string): ScriptedResponse {
  return response(responseId, [
    { type: "message", role: "assistant", id: `msg_${responseId}`, content: [{ type: "output_text", text, annotations: [] }] },
  ]);
}
