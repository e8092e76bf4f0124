// Task: starts a subagent through subagent_args; the client runs it as its own
// request and replies with subagent_result when it finishes (or backgrounds).
// The workspace's custom subagents (request context) are extra subagent types.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  CustomSubagentPermissionMode,
  SubagentBackgroundReason,
  SubagentExecutionEnvironment,
  type CustomSubagent,
  type SubagentSuccess,
  type SubagentTypeSchema,
  type TaskResultSchema,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { boolean, optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";
import type { ToolDefinition } from "../../provider/types.ts";
import { clipLine } from "../context/bounds.ts";
import { truncateMiddle } from "./truncate.ts";

const DEFAULT_SUBAGENT_TYPE = "generalPurpose";

const TaskArgsInput = z.object({
  description: z.string().min(1, "must not be empty"),
  prompt: z.string().min(1, "must not be empty"),
  subagent_type: optional(z.string()),
  model: optional(z.string()),
  resume: optional(z.string()),
  run_in_background: optional(boolean),
  readonly: optional(boolean),
});
export type TaskToolArgs = z.output<typeof TaskArgsInput>;

export const taskTool: Tool<TaskToolArgs> = {
  name: "Task",
  definition: definitionOf("Task"),
  emptyCard: () => toolCard({ case: "taskToolCall", value: {} }),
  parse: (json) => parseArgs("Task", TaskArgsInput, json),
  startedCard: (args) => card(args),
  run: (args, ctx) => runTask(args, ctx, undefined),
};

const CUSTOM_SUBAGENTS_MAX = 30;
const CUSTOM_DESCRIPTION_MAX_CHARS = 200;

/**
 * Task with the workspace's custom subagents as further subagent types: their
 * names and descriptions join the subagent_type description, and a Task of one
 * carries its prompt and model in subagent_args. No custom subagents: Task itself.
 */
export function taskToolFor(custom: readonly CustomSubagent[]): Tool<TaskToolArgs> {
  // Sorted, so the definition is the same bytes whatever order the client lists them in.
  const offered = custom
    .filter((c) => c.name.trim())
    .sort(bySubagent)
    .slice(0, CUSTOM_SUBAGENTS_MAX);
  if (offered.length === 0) return taskTool;
  return {
    ...taskTool,
    definition: withCustomTypes(taskTool.definition, offered),
    run: (args, ctx) => runTask(args, ctx, findCustom(offered, args.subagent_type)),
  };
}

function withCustomTypes(definition: ToolDefinition, custom: readonly CustomSubagent[]): ToolDefinition {
  const parameters = definition.parameters as { properties: Record<string, { description: string }> };
  const types = custom.map((c) => `"${c.name}" (${clipLine(c.description, CUSTOM_DESCRIPTION_MAX_CHARS) || "no description"})`);
  const subagentType = {
    ...parameters.properties.subagent_type,
    description: `${parameters.properties.subagent_type?.description} This workspace also defines these subagent types: ${types.join("; ")}.`,
  };
  return Object.freeze({
    ...definition,
    parameters: { ...definition.parameters, properties: { ...parameters.properties, subagent_type: subagentType } },
  });
}

function bySubagent(a: CustomSubagent, b: CustomSubagent): number {
  for (const key of ["name", "description", "prompt", "model"] as const) {
    if (a[key] !== b[key]) return a[key] < b[key] ? -1 : 1;
  }
  return 0;
}

/** The custom subagent a Task names: by exact name, else ignoring case. */
function findCustom(custom: readonly CustomSubagent[], name: string | undefined): CustomSubagent | undefined {
  if (!name) return undefined;
  return custom.find((c) => c.name === name) ?? custom.find((c) => c.name.toLowerCase() === name.toLowerCase());
}

type SubagentTypeInit = MessageInitShape<typeof SubagentTypeSchema>["type"];

/** The card's typed subagent kind; names it does not know travel as custom{name}. */
function subagentTypeOf(name: string): SubagentTypeInit {
  switch (name.replace(/[-_\s]/g, "").toLowerCase()) {
    case "generalpurpose":
      return { case: "unspecified", value: {} };
    case "explore":
      return { case: "explore", value: {} };
    case "shell":
      return { case: "shell", value: {} };
    case "bash":
      return { case: "bash", value: {} };
    case "debug":
      return { case: "debug", value: {} };
    case "cursorguide":
      return { case: "cursorGuide", value: {} };
    case "computeruse":
      return { case: "computerUse", value: {} };
    case "browseruse":
      return { case: "browserUse", value: {} };
    case "mediareview":
      return { case: "mediaReview", value: {} };
    case "vmsetuphelper":
      return { case: "vmSetupHelper", value: {} };
    case "watchvideo":
      return { case: "watchVideo", value: {} };
    default:
      return { case: "custom", value: { name } };
  }
}

function card(args: TaskToolArgs, result?: MessageInitShape<typeof TaskResultSchema>): ToolCall {
  const taskArgs = {
    description: args.description,
    prompt: args.prompt,
    subagentType: { type: subagentTypeOf(args.subagent_type ?? DEFAULT_SUBAGENT_TYPE) },
    model: args.model,
    resume: args.resume,
  };
  return toolCard({ case: "taskToolCall", value: { args: taskArgs, result } });
}

async function runTask(args: TaskToolArgs, ctx: ToolContext, custom: CustomSubagent | undefined): Promise<ToolResult> {
  const subagentType = custom?.name ?? args.subagent_type ?? DEFAULT_SUBAGENT_TYPE;
  const call = ctx.client.exec(
    {
      case: "subagentArgs",
      value: {
        toolCallId: ctx.toolCallId,
        subagentType,
        modelId: ctx.resolveSubagentModel(args.model ?? customModel(custom), subagentType),
        prompt: custom ? withInstructions(custom, args.prompt) : args.prompt,
        // A read-only custom subagent stays read-only whatever the model asks for.
        readonly: args.readonly === true || custom?.permissionMode === CustomSubagentPermissionMode.READONLY,
        resumeAgentId: args.resume,
        runInBackground: args.run_in_background ?? (custom?.isBackground || undefined),
        parentConversationId: ctx.conversationId,
        environment: SubagentExecutionEnvironment.LOCAL,
      },
    },
    // The subagent's hooks are its own business, not the parent's context.
    { toolCallId: ctx.toolCallId, acceptHookAdditionalContexts: false },
  );
  const reply = await nextReply(call, "subagentResult");
  const fail = (message: string) => failure(message, card(args, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "success":
      return subagentSuccess(args, result.value);
    case "error":
      return fail(`Subagent "${args.description}" failed: ${result.value.error || "unknown error"}`);
    case undefined:
      return fail("Cursor returned an empty subagent result.");
  }
}

/** A custom subagent's own model, unless it inherits the parent's. */
function customModel(custom: CustomSubagent | undefined): string | undefined {
  return custom?.model && custom.model !== "inherit" ? custom.model : undefined;
}

/**
 * subagent_args has no field for a subagent's own instructions, so a custom
 * subagent's prompt travels ahead of the task in `prompt`.
 */
function withInstructions(custom: CustomSubagent, task: string): string {
  if (!custom.prompt.trim()) return task;
  return `<subagent_instructions name="${custom.name}">\n${truncateMiddle(custom.prompt.trim())}\n</subagent_instructions>\n\n${task}`;
}

function subagentSuccess(args: TaskToolArgs, done: SubagentSuccess): ToolResult {
  const inBackground =
    done.backgroundReason !== SubagentBackgroundReason.UNSPECIFIED || (args.run_in_background === true && done.finalMessage === undefined);
  const body =
    done.finalMessage ??
    (inBackground
      ? "The subagent is running in the background; you will be notified when it finishes."
      : "(The subagent returned no final message.)");
  const content = `Subagent name: ${args.description}\nSubagent ID: ${done.agentId}\n\n${body}`;
  const value = {
    agentId: done.agentId,
    isBackground: inBackground,
    backgroundReason: done.backgroundReason,
    transcriptPath: done.transcriptPath,
    conversationSteps: done.finalMessage ? [{ message: { case: "assistantMessage" as const, value: { text: done.finalMessage } } }] : [],
  };
  return success(content, card(args, { result: { case: "success", value } }));
}
