// ReadLints: diagnostics_args takes one path, so each requested path gets its
// own exec, one after the other; no paths means one request for the workspace.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  DiagnosticSeverity,
  type Diagnostic,
  type DiagnosticsResult,
  type FileDiagnosticsSchema,
  type ReadLintsToolResultSchema,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const ReadLintsArgsInput = z.object({
  paths: optional(z.union([z.array(z.string()), z.string().transform((path) => [path])])),
});
export type ReadLintsToolArgs = z.output<typeof ReadLintsArgsInput>;

type FileDiagnosticsInit = MessageInitShape<typeof FileDiagnosticsSchema>;

export const readLintsTool: Tool<ReadLintsToolArgs> = {
  name: "ReadLints",
  definition: definitionOf("ReadLints"),
  emptyCard: () => toolCard({ case: "readLintsToolCall", value: {} }),
  parse: (json) => parseArgs("ReadLints", ReadLintsArgsInput, json),
  startedCard: (args) => card(args),
  run: runReadLints,
};

function card(args: ReadLintsToolArgs, result?: MessageInitShape<typeof ReadLintsToolResultSchema>): ToolCall {
  return toolCard({ case: "readLintsToolCall", value: { args: { paths: args.paths ?? [] }, result } });
}

async function runReadLints(args: ReadLintsToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const paths = args.paths && args.paths.length > 0 ? args.paths : [""];
  const files: FileDiagnosticsInit[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    const call = ctx.client.exec({ case: "diagnosticsArgs", value: { path, toolCallId: ctx.toolCallId } }, { toolCallId: ctx.toolCallId });
    const reply = await nextReply(call, "diagnosticsResult");
    if (!reply.ok) {
      return failure(reply.error, card(args, { result: { case: "error", value: { errorMessage: reply.error } } }));
    }
    const result = reply.value.result;
    if (result.case === "success") {
      const diagnostics = result.value.diagnostics.map(toItem);
      files.push({ path: result.value.path || path, diagnostics, diagnosticsCount: result.value.totalDiagnostics || diagnostics.length });
    } else {
      problems.push(diagnosticsErrorText(path || "the workspace", result));
    }
  }
  if (files.length === 0) {
    const message = problems.join("\n");
    return failure(message, card(args, { result: { case: "error", value: { errorMessage: message } } }));
  }
  const totalDiagnostics = files.reduce((sum, f) => sum + (f.diagnosticsCount ?? 0), 0);
  const value = { fileDiagnostics: files, totalFiles: files.length, totalDiagnostics };
  return success(renderLints(files, problems), card(args, { result: { case: "success", value } }));
}

/** Diagnostic (exec reply) → DiagnosticItem (card): same fields, Range becomes DiagnosticRange. */
function toItem(d: Diagnostic) {
  const range = d.range && { start: d.range.start, end: d.range.end };
  return { severity: d.severity, range, message: d.message, source: d.source, code: d.code, isStale: d.isStale };
}

const SEVERITY: Record<number, string> = {
  [DiagnosticSeverity.ERROR]: "error",
  [DiagnosticSeverity.WARNING]: "warning",
  [DiagnosticSeverity.INFORMATION]: "info",
  [DiagnosticSeverity.HINT]: "hint",
};

function renderLints(files: FileDiagnosticsInit[], problems: string[]): string {
  const blocks = files
    .filter((f) => (f.diagnostics?.length ?? 0) > 0)
    .map((f) => {
      const lines = (f.diagnostics ?? []).map((d) => {
        // Positions arrive 0-based; people and models count lines from 1.
        const at = d.range?.start ? `L${(d.range.start.line ?? 0) + 1}:${(d.range.start.column ?? 0) + 1}` : "";
        const origin = [d.source, d.code].filter(Boolean).join(" ");
        return `  ${at} [${SEVERITY[d.severity ?? 0] ?? "problem"}] ${d.message ?? ""}${origin ? ` (${origin})` : ""}`;
      });
      return `${f.path}:\n${lines.join("\n")}`;
    });
  const text = blocks.length === 0 ? "No linter errors found." : blocks.join("\n\n");
  return truncateMiddle(problems.length === 0 ? text : `${text}\n\n${problems.join("\n")}`);
}

function diagnosticsErrorText(path: string, result: DiagnosticsResult["result"]): string {
  switch (result.case) {
    case "fileNotFound":
      return `File not found: ${path}`;
    case "permissionDenied":
      return `Permission denied: ${path}`;
    case "rejected":
      return `Reading diagnostics for ${path} was rejected${result.value.reason ? `: ${result.value.reason}` : "."}`;
    case "error":
      return `Could not read diagnostics for ${path}: ${result.value.error || "unknown error"}`;
    case "success":
    case undefined:
      return `Cursor returned an empty diagnostics result for ${path}.`;
  }
}
