// Live updates a tool sends while it runs: shell output and edit content, as
// interaction_update.tool_call_delta tied to the call and its model call.
import { updates } from "../../proto/frames.ts";
import type { ToolContext } from "./tool-types.ts";

export function emitShellOutput(ctx: ToolContext, stream: "stdout" | "stderr", content: string): void {
  ctx.emit(
    updates.toolCallDelta(ctx.toolCallId, ctx.modelCallId, {
      case: "shellToolCallDelta",
      value: { delta: { case: stream, value: { content } } },
    }),
  );
}

export function emitEditContent(ctx: ToolContext, fullText: string): void {
  ctx.emit(updates.toolCallDelta(ctx.toolCallId, ctx.modelCallId, { case: "editToolCallDelta", value: { streamContentDelta: fullText } }));
}
