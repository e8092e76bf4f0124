// SwitchMode: interaction_query switch_mode (4). Once the user approves, the
// conversation's mode in ToolSessionState changes.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import { AgentMode, type SwitchModeResultSchema, type ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

/** Modes the model may ask for (the client does not let an agent enter ask or debug). */
const SWITCHABLE: Record<string, AgentMode> = { agent: AgentMode.AGENT, plan: AgentMode.PLAN };

/** Mode ids as the client names them, for the card's from_mode_id. */
const MODE_NAMES: Partial<Record<AgentMode, string>> = {
  [AgentMode.AGENT]: "agent",
  [AgentMode.ASK]: "ask",
  [AgentMode.PLAN]: "plan",
  [AgentMode.DEBUG]: "debug",
};

const SwitchModeArgsInput = z.object({
  target_mode_id: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toLowerCase() : v),
    z.string().refine((id) => Object.hasOwn(SWITCHABLE, id), `must be one of: ${Object.keys(SWITCHABLE).join(", ")}`),
  ),
  explanation: optional(z.string()),
});
export type SwitchModeToolArgs = z.output<typeof SwitchModeArgsInput>;

export const switchModeTool: Tool<SwitchModeToolArgs> = {
  name: "SwitchMode",
  definition: definitionOf("SwitchMode"),
  emptyCard: () => toolCard({ case: "switchModeToolCall", value: {} }),
  parse: (json) => parseArgs("SwitchMode", SwitchModeArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runSwitchMode,
};

function card(args: SwitchModeToolArgs, toolCallId: string, result?: MessageInitShape<typeof SwitchModeResultSchema>): ToolCall {
  return toolCard({
    case: "switchModeToolCall",
    value: { args: { targetModeId: args.target_mode_id, explanation: args.explanation, toolCallId }, result },
  });
}

function modeName(mode: number): string {
  return MODE_NAMES[mode as AgentMode] ?? "agent";
}

async function runSwitchMode(args: SwitchModeToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const target = args.target_mode_id;
  const response = await ctx.client.interaction({
    case: "switchModeRequestQuery",
    value: { args: { targetModeId: target, explanation: args.explanation, toolCallId: ctx.toolCallId } },
  });
  const reply = interactionReply(response, "switchModeRequestResponse");
  const fail = (message: string) => failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "approved": {
      const from = modeName(ctx.state.mode);
      ctx.state.mode = SWITCHABLE[target] ?? AgentMode.AGENT;
      const value = { fromModeId: from, toModeId: target };
      return success(`Switched from ${from} mode to ${target} mode.`, card(args, ctx.toolCallId, { result: { case: "success", value } }));
    }
    case "rejected": {
      const reason = result.value.reason;
      const text = `The user declined to switch to ${target} mode${reason ? `: ${reason}` : "."} Stay in the current mode.`;
      return success(text, card(args, ctx.toolCallId, { result: { case: "rejected", value: { reason } } }));
    }
    case undefined:
      return fail("Cursor returned an empty answer to the mode switch.");
  }
}
