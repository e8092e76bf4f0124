// CreatePlan: interaction_query create_plan (7). The client stores the plan and
// answers with where it lives.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import { TodoStatus, type CreatePlanArgsSchema, type CreatePlanResultSchema, type ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const CreatePlanArgsInput = z.object({
  name: optional(z.string()),
  overview: optional(z.string()),
  plan: z.string().min(1, "must not be empty"),
  todos: optional(z.array(z.object({ id: z.string().min(1, "must not be empty"), content: z.string() }))),
});
export type CreatePlanToolArgs = z.output<typeof CreatePlanArgsInput>;

type PlanArgsInit = MessageInitShape<typeof CreatePlanArgsSchema>;

export const createPlanTool: Tool<CreatePlanToolArgs> = {
  name: "CreatePlan",
  definition: definitionOf("CreatePlan"),
  emptyCard: () => toolCard({ case: "createPlanToolCall", value: {} }),
  parse: (json) => parseArgs("CreatePlan", CreatePlanArgsInput, json),
  startedCard: (args) => card(planArgs(args)),
  run: runCreatePlan,
};

function planArgs(args: CreatePlanToolArgs): PlanArgsInit {
  return {
    plan: args.plan,
    overview: args.overview ?? "",
    name: args.name ?? "",
    todos: (args.todos ?? []).map((t) => ({ id: t.id, content: t.content, status: TodoStatus.PENDING })),
  };
}

function card(args: PlanArgsInit, result?: MessageInitShape<typeof CreatePlanResultSchema>): ToolCall {
  return toolCard({ case: "createPlanToolCall", value: { args, result } });
}

async function runCreatePlan(args: CreatePlanToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const sent = planArgs(args);
  const response = await ctx.client.interaction({ case: "createPlanRequestQuery", value: { args: sent, toolCallId: ctx.toolCallId } });
  const reply = interactionReply(response, "createPlanRequestResponse");
  const fail = (message: string) => failure(message, card(sent, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  if (result === undefined) return fail("Cursor returned an empty answer to the plan.");
  if (result.result.case === "error") return fail(`Saving the plan failed: ${result.result.value.error || "unknown error"}`);
  // Success, or no outcome but a location: either way the plan is stored.
  if (result.result.case === "success" || result.planUri !== "") {
    const where = result.planUri ? ` at ${result.planUri}` : "";
    return success(`The plan was saved${where}. The user can review it and start the implementation.`, card(sent, result));
  }
  return fail("Cursor returned an empty answer to the plan.");
}
