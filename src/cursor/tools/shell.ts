// Shell: runs a command through shell_stream_args and follows its event stream,
// forwarding stdout/stderr to the UI as they arrive. The tool ends at the first
// terminal event; the stream_close that follows is the round's business.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  SandboxPolicy_Type,
  ShellAbortReason,
  ShellArgsSchema,
  TimeoutBehavior,
  type ShellArgs,
  type ShellResultSchema,
  type ShellStreamBackgrounded,
  type ShellStreamExit,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { integer, optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { emitShellOutput } from "./deltas.ts";
import { nextReply } from "./exec-reply.ts";
import type { ShellParse } from "./shell-parse.ts";
import { parseShellCommand } from "./shell-parser.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const DEFAULT_BLOCK_UNTIL_MS = 30_000;
/** Output beyond this is spilled by the client to a file it tells us about. */
const FILE_OUTPUT_THRESHOLD_BYTES = 40_000n;
/** One day: a backgrounded shell is the user's to stop, not ours. */
const HARD_TIMEOUT_MS = 86_400_000;
const INT32_MAX = 2_147_483_647;

const ShellArgsInput = z.object({
  command: z.string().min(1, "must not be empty"),
  working_directory: optional(z.string()),
  block_until_ms: optional(integer(0)),
  description: optional(z.string()),
  required_permissions: optional(z.array(z.string())),
  notify_on_output: optional(z.object({ pattern: z.string(), reason: z.string(), debounce_ms: optional(z.number().nonnegative()) })),
});
export type ShellToolArgs = z.output<typeof ShellArgsInput>;

type ShellResultInit = MessageInitShape<typeof ShellResultSchema>;

export const shellTool: Tool<ShellToolArgs> = {
  name: "Shell",
  definition: definitionOf("Shell"),
  emptyCard: () => toolCard({ case: "shellToolCall", value: {} }),
  parse: (json) => parseArgs("Shell", ShellArgsInput, json),
  startedCard: (args, toolCallId) => card(buildShellArgs(args, toolCallId)),
  run: runShell,
};

/** The started card has no parse yet; the exec and the completed card carry it (docs/shell-parsing.md). */
function buildShellArgs(args: ShellToolArgs, toolCallId: string, conversationId?: string, parse?: ShellParse): ShellArgs {
  const notify = args.notify_on_output;
  return create(ShellArgsSchema, {
    ...parse,
    command: args.command,
    workingDirectory: args.working_directory ?? "",
    timeout: Math.min(args.block_until_ms ?? DEFAULT_BLOCK_UNTIL_MS, INT32_MAX),
    toolCallId,
    fileOutputThresholdBytes: FILE_OUTPUT_THRESHOLD_BYTES,
    timeoutBehavior: TimeoutBehavior.BACKGROUND,
    hardTimeout: HARD_TIMEOUT_MS,
    closeStdin: true,
    description: args.description,
    conversationId,
    requestedSandboxPolicy: sandboxPolicy(args.required_permissions ?? []),
    outputNotification: notify && { pattern: notify.pattern, reason: notify.reason, debounce: notify.debounce_ms },
  });
}

/** "all" leaves the sandbox; "full_network" keeps it but opens the network. */
function sandboxPolicy(permissions: readonly string[]) {
  if (permissions.includes("all")) return { type: SandboxPolicy_Type.INSECURE_NONE, networkAccess: true };
  if (permissions.includes("full_network")) return { type: SandboxPolicy_Type.WORKSPACE_READWRITE, networkAccess: true };
  return undefined;
}

function card(args: ShellArgs, result?: ShellResultInit): ToolCall {
  return toolCard({ case: "shellToolCall", value: { args, result, description: args.description } });
}

/** What the command printed so far, per stream and interleaved in arrival order. */
interface Output {
  stdout: string;
  stderr: string;
  interleaved: string;
}

async function runShell(args: ShellToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const shellArgs = buildShellArgs(args, ctx.toolCallId, ctx.conversationId, await parseShellCommand(args.command));
  const call = ctx.client.exec({ case: "shellStreamArgs", value: shellArgs }, { toolCallId: ctx.toolCallId });
  const output: Output = { stdout: "", stderr: "", interleaved: "" };
  const spawnError = (error: string) =>
    failure(
      error,
      card(shellArgs, {
        result: { case: "spawnError", value: { command: args.command, workingDirectory: shellArgs.workingDirectory, error } },
      }),
    );

  for (;;) {
    const reply = await nextReply(call, "shellStream");
    if (!reply.ok) return spawnError(reply.error);
    const event = reply.value.event;
    switch (event.case) {
      case "stdout":
      case "stderr":
        if (event.value.data === "") break;
        output[event.case] += event.value.data;
        output.interleaved += event.value.data;
        emitShellOutput(ctx, event.case, event.value.data);
        break;
      case "exit":
        return exited(shellArgs, event.value, output);
      case "backgrounded":
        return backgrounded(shellArgs, event.value, output);
      case "rejected": {
        const reason = event.value.reason ? ` Reason: ${event.value.reason}` : "";
        return failure(`The user rejected the command.${reason}`, card(shellArgs, { result: { case: "rejected", value: event.value } }));
      }
      case "permissionDenied":
        return failure(
          `Permission denied running the command: ${event.value.error || "no details"}`,
          card(shellArgs, { result: { case: "permissionDenied", value: event.value } }),
        );
      case "sandboxUnsupported":
        return spawnError(`The command cannot run in the requested sandbox: ${event.value.reason || "not supported"}`);
      case "start":
      case "hookContext":
      case undefined:
        break;
    }
  }
}

function exited(shellArgs: ShellArgs, exit: ShellStreamExit, output: Output): ToolResult {
  const common = {
    command: shellArgs.command,
    workingDirectory: exit.cwd || shellArgs.workingDirectory,
    exitCode: exit.code,
    stdout: output.stdout,
    stderr: output.stderr,
    executionTime: exit.localExecutionTimeMs ?? 0,
    outputLocation: exit.outputLocation,
    interleavedOutput: output.interleaved,
    localExecutionTimeMs: exit.localExecutionTimeMs,
  };
  const lines = [`Exit code: ${exit.code}`];
  if (exit.aborted) lines.push(`The command was aborted${exit.abortReason === ShellAbortReason.TIMEOUT ? " after timing out" : ""}.`);
  if (exit.outputLocation?.filePath) lines.push(`Full output was saved to ${exit.outputLocation.filePath}.`);
  const content = `${lines.join("\n")}\n\n${modelOutput(output)}`;
  if (exit.code === 0 && !exit.aborted) {
    return success(content, card(shellArgs, { result: { case: "success", value: common } }));
  }
  const failed = { ...common, aborted: exit.aborted, abortReason: exit.abortReason };
  return failure(content, card(shellArgs, { result: { case: "failure", value: failed } }));
}

function backgrounded(shellArgs: ShellArgs, event: ShellStreamBackgrounded, output: Output): ToolResult {
  const pid = event.pid === undefined ? "" : ` pid=${event.pid}`;
  const head = `shell running in background shell_id=${event.shellId}${pid}`;
  const content = output.interleaved === "" ? head : `${head}\n\nOutput so far:\n${truncateMiddle(output.interleaved)}`;
  const result: ShellResultInit = {
    isBackground: true,
    pid: event.pid,
    result: {
      case: "success",
      value: {
        command: event.command || shellArgs.command,
        workingDirectory: event.workingDirectory || shellArgs.workingDirectory,
        stdout: output.stdout,
        stderr: output.stderr,
        interleavedOutput: output.interleaved,
        shellId: event.shellId,
        pid: event.pid,
        msToWait: event.msToWait,
        backgroundReason: event.reason,
      },
    },
  };
  return success(content, card(shellArgs, result));
}

function modelOutput(output: Output): string {
  return output.interleaved === "" ? "(no output)" : truncateMiddle(output.interleaved);
}
