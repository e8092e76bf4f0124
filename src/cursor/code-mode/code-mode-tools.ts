// Codex's exec and wait tools for a run on a `code_mode` model (docs/code-mode.md#cursor-runs):
// offered after the run's own tools, which stay as they are. exec runs a cell whose
// `tools` are the run's client tools (the file, search and shell tools, and the
// request context's MCP tools); wait observes or stops a cell that yielded.
import { fromBase64 } from "../../core/bytes.ts";
import execTemplate from "../../../prompt/code-mode-exec.md";
import waitDescription from "../../../prompt/code-mode-wait.md";
import definitions from "../../../prompt/code-mode-tools.json";
import type { ToolDefinition as EngineToolDefinition } from "../../code-mode/engine/engine-types.ts";
import { DEFAULT_YIELD_TIME_MS } from "../../code-mode/engine/yield-time.ts";
import { IMAGE_MAX_BYTES, imagePartOf } from "../../provider/images.ts";
import type { ChatMessage, ImagePart, ToolDefinition } from "../../provider/types.ts";
import type { RequestChannel } from "../agent/request-channel.ts";
import type { ParsedArgs, Tool, ToolContext, ToolResult } from "../tools/tool-types.ts";
import { codeModeCard, emptyCodeModeCard } from "./code-mode-card.ts";
import type { ConversationCodeMode, Observation } from "./conversation-code-mode.ts";
import { toolDeclarations } from "./declarations.ts";
import { parseExecSource, type ExecSource } from "./pragma.ts";
import { RunRelay } from "./relay.ts";
import { formatRuntimeResponse, resultText } from "./result-format.ts";

/** The built-in tools a cell may call; the request context's MCP tools (`mcp__…`) too. */
const CELL_TOOLS = new Set(["Read", "Grep", "Glob", "Shell", "Write", "StrReplace", "Delete"]);
/** Tools whose results may carry images (then a cell gets `{ text, images }`). */
const IMAGE_TOOLS = new Set(["Read"]);

export interface CodeModeRun {
  host: ConversationCodeMode;
  runId: string;
  runSignal: AbortSignal;
  channel: RequestChannel;
  /** Appends a tool message to the run's history. */
  record(message: Extract<ChatMessage, { role: "tool" }>): void;
}

function isCellTool(tool: Tool): boolean {
  return CELL_TOOLS.has(tool.name) || tool.name.startsWith("mcp__");
}

/** The run's tools, then exec and wait. */
export function withCodeMode(tools: readonly Tool[], run: CodeModeRun): readonly Tool[] {
  const cellTools = tools.filter(isCellTool);
  let relay: RunRelay | undefined;
  // One relay per run, made on its first exec or wait; later calls bring their newer context.
  const relayFor = (ctx: ToolContext) => {
    if (!relay) relay = new RunRelay(run.runId, run.runSignal, run.channel, cellTools, run.record, ctx);
    else relay.update(ctx);
    return relay;
  };
  const enabledTools: EngineToolDefinition[] = cellTools.map((tool) => ({
    name: tool.name,
    toolName: { name: tool.name },
    description: tool.definition.description,
    kind: "function",
    inputSchema: tool.definition.parameters,
  }));
  return [...tools, execTool(run.host, cellTools, enabledTools, relayFor), waitTool(run.host, relayFor)];
}

type ExecArgs = { input: string; parsed: ExecSource };

function execTool(
  host: ConversationCodeMode,
  cellTools: readonly Tool[],
  enabledTools: EngineToolDefinition[],
  relayFor: (ctx: ToolContext) => RunRelay,
): Tool<ExecArgs> {
  const definition: ToolDefinition = {
    name: "exec",
    description: execDescription(cellTools),
    parameters: definitions.exec.parameters,
    freeform: { syntax: "lark", definition: definitions.exec.grammar },
  };
  return {
    name: "exec",
    definition,
    emptyCard: emptyCodeModeCard,
    parse: parseExecInput,
    startedCard: (args, toolCallId) => codeModeCard("exec", { source: args.input }, toolCallId),
    run: async (args, ctx) => {
      const startedMs = Date.now();
      const observation = await host.execute({
        source: args.parsed,
        toolCallId: ctx.toolCallId,
        enabledTools,
        relay: relayFor(ctx),
        observer: { callId: ctx.toolCallId, toolName: "exec" },
        signal: ctx.signal,
      });
      const card = (result: { text: string; isError: boolean }) => codeModeCard("exec", { source: args.input }, ctx.toolCallId, result);
      return toolResult(observation, args.parsed.maxOutputTokens, Date.now() - startedMs, card);
    },
  };
}

function execDescription(cellTools: readonly Tool[]): string {
  const declarations = toolDeclarations(
    cellTools.map((tool) => ({
      name: tool.name,
      description: tool.definition.description,
      parameters: tool.definition.parameters,
      images: IMAGE_TOOLS.has(tool.name) || tool.name.startsWith("mcp__"),
    })),
  );
  return execTemplate.trim().replace("{{TOOL_DECLARATIONS}}", () => declarations);
}

/**
 * Raw program text (a custom tool's input), or the function variant's `{"source": …}`;
 * either way the `// @exec:` pragma is read from the program.
 */
function parseExecInput(text: string): ParsedArgs<ExecArgs> {
  const input = functionSource(text) ?? text;
  const parsed = parseExecSource(input);
  return parsed.ok ? { ok: true, args: { input, parsed: parsed.value } } : { ok: false, error: parsed.error };
}

/** The `source` of JSON arguments; "{}" (what an empty call becomes) is an empty program. */
function functionSource(text: string): string | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const source = (value as { source?: unknown }).source;
    return typeof source === "string" ? source : Object.keys(value).length === 0 ? "" : undefined;
  } catch {
    return undefined; // not JSON: a program that starts with a block
  }
}

type WaitArgs = { cellId: string; yieldTimeMs: number; maxTokens?: number; terminate: boolean };

function waitTool(host: ConversationCodeMode, relayFor: (ctx: ToolContext) => RunRelay): Tool<WaitArgs> {
  const argsOf = (args: WaitArgs) => ({
    cell_id: args.cellId,
    yield_time_ms: args.yieldTimeMs,
    ...(args.maxTokens !== undefined && { max_tokens: args.maxTokens }),
    terminate: args.terminate,
  });
  return {
    name: "wait",
    definition: { name: "wait", description: waitDescription.trim(), parameters: definitions.wait.parameters },
    emptyCard: emptyCodeModeCard,
    parse: parseWaitArgs,
    startedCard: (args, toolCallId) => codeModeCard("wait", argsOf(args), toolCallId),
    run: async (args, ctx) => {
      const startedMs = Date.now();
      const observation = await host.wait({
        cellId: args.cellId,
        yieldTimeMs: args.yieldTimeMs,
        terminate: args.terminate,
        relay: relayFor(ctx),
        observer: { callId: ctx.toolCallId, toolName: "wait" },
        signal: ctx.signal,
      });
      const card = (result: { text: string; isError: boolean }) => codeModeCard("wait", argsOf(args), ctx.toolCallId, result);
      return toolResult(observation, args.maxTokens, Date.now() - startedMs, card);
    },
  };
}

/** Codex's wait arguments: unknown fields ignored, wrong types refused with its prefix. */
function parseWaitArgs(text: string): ParsedArgs<WaitArgs> {
  const fail = (detail: string): ParsedArgs<WaitArgs> => ({ ok: false, error: `failed to parse function arguments: ${detail}` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("expected a JSON object");
  const raw = value as Record<string, unknown>;
  if (raw.cell_id === undefined) return fail("missing field `cell_id`");
  if (typeof raw.cell_id !== "string") return fail("`cell_id` must be a string");
  const count = (key: string): number | undefined | false => {
    const field = raw[key];
    if (field === undefined || field === null) return undefined;
    return typeof field === "number" && Number.isSafeInteger(field) && field >= 0 ? field : false;
  };
  const yieldTimeMs = count("yield_time_ms");
  if (yieldTimeMs === false) return fail("`yield_time_ms` must be a non-negative integer");
  const maxTokens = count("max_tokens");
  if (maxTokens === false) return fail("`max_tokens` must be a non-negative integer");
  if (raw.terminate !== undefined && raw.terminate !== null && typeof raw.terminate !== "boolean")
    return fail("`terminate` must be a boolean");
  return {
    ok: true,
    args: {
      cellId: raw.cell_id,
      yieldTimeMs: yieldTimeMs ?? DEFAULT_YIELD_TIME_MS,
      ...(maxTokens !== undefined && { maxTokens }),
      terminate: raw.terminate === true,
    },
  };
}

function toolResult(
  observation: Observation,
  maxTokens: number | undefined,
  wallTimeMs: number,
  card: (result: { text: string; isError: boolean }) => ToolResult["card"],
): ToolResult {
  if (observation.kind === "refused") {
    return { content: observation.text, isError: true, card: card({ text: observation.text, isError: true }) };
  }
  const formatted = formatRuntimeResponse(observation.response, maxTokens, wallTimeMs);
  const { text, imageUrls } = resultText(formatted.items);
  const images = imageUrls.map(imagePartOfUrl);
  const notes = images.flatMap((image, n) => (image ? [] : [`[image ${n + 1} left out: not a base64 image data URL the model can take]`]));
  const content = notes.length > 0 ? `${text}\n${notes.join("\n")}` : text;
  const kept = images.filter((image): image is ImagePart => image !== undefined);
  return {
    content,
    isError: !formatted.success,
    card: card({ text: content, isError: !formatted.success }),
    ...(kept.length > 0 && { images: kept }),
  };
}

/** A `data:` URL's image as providers take it, or undefined. */
function imagePartOfUrl(url: string): ImagePart | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  const bytes = fromBase64(match[3]!);
  return bytes !== undefined && bytes.byteLength <= IMAGE_MAX_BYTES ? imagePartOf(bytes, match[1]) : undefined;
}
