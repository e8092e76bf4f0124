// Live updates a tool sends while it runs: shell output and edit content, as
// interaction_update.tool_call_delta tied to the call and its model call.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ToolCallDeltaSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import { interactionUpdate } from "../../proto/frames.ts";
import type { ToolContext } from "./types.ts";

type DeltaInit = MessageInitShape<typeof ToolCallDeltaSchema>["delta"];

function emitToolCallDelta(ctx: ToolContext, delta: DeltaInit): void {
  ctx.emit(
    interactionUpdate({
      case: "toolCallDelta",
      value: { callId: ctx.toolCallId, modelCallId: ctx.modelCallId, toolCallDelta: { delta } },
    }),
  );
}

export function emitShellOutput(ctx: ToolContext, stream: "stdout" | "stderr", content: string): void {
  emitToolCallDelta(ctx, { case: "shellToolCallDelta", value: { delta: { case: stream, value: { content } } } });
}

export function emitEditContent(ctx: ToolContext, fullText: string): void {
  emitToolCallDelta(ctx, { case: "editToolCallDelta", value: { streamContentDelta: fullText } });
}
