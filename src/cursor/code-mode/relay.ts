// A cell's `tools.X(...)` calls, relayed to the Cursor client through the run that
// currently carries code mode: the same tool implementations, exec messages and
// cards as a direct call, the result given back to the cell (docs/code-mode.md#cursor-runs).
import { updates } from "../../proto/frames.ts";
import { isAbortError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { dataUri } from "../../provider/images.ts";
import type { ChatMessage } from "../../provider/types.ts";
import type { CellToolCall } from "../../code-mode/engine/engine-types.ts";
import type { RequestChannel } from "../agent/request-channel.ts";
import { untilAborted } from "../../code-mode/engine/until-aborted.ts";
import { withIds } from "../agent/tool-round.ts";
import type { Tool, ToolContext, ToolResult } from "../tools/tool-types.ts";
import type { SpanScope } from "../../telemetry/run-trace.ts";
import { errorTypeOf } from "../agent/run-spans.ts";
import { toolCallSpan } from "../../telemetry/tool-spans.ts";

/** Thrown into a cell's tool promise; the cell sees the message as a string rejection. */
class CellToolError extends Error {
  override readonly name = "CellToolError";
}

const RUN_ENDED = "the Cursor run that carried this tool call ended before it finished";

/**
 * What one run lends code mode: its channel to the client and the context of its latest
 * exec or wait call (model call id, state, search, blobs). Ends with the run.
 */
export class RunRelay {
  readonly #ended = new AbortController();
  #context: ToolContext;

  constructor(
    readonly runId: string,
    /** Fires when the run is cancelled (not when one of its rounds is interrupted). */
    readonly runSignal: AbortSignal,
    readonly channel: RequestChannel,
    /** The tools a cell may call in this run, by name. */
    readonly tools: readonly Tool[],
    /** Appends a tool message to the history (a notification as an extra output of a call). */
    readonly record: (message: Extract<ChatMessage, { role: "tool" }>) => void,
    context: ToolContext,
  ) {
    this.#context = context;
  }

  /** The run's latest exec or wait call: cards of later tool calls go with its model call. */
  update(context: ToolContext): void {
    this.#context = context;
  }

  get ended(): boolean {
    return this.#ended.signal.aborted;
  }

  /** The run finished: calls still relayed through it fail, their execs are aborted on the client. */
  end(): void {
    if (!this.ended) this.#ended.abort(new CellToolError(RUN_ENDED));
  }

  /** Runs a cell's call as a direct call would run, with its own tool call id and cards. */
  async call(call: CellToolCall, cellSignal: AbortSignal): Promise<unknown> {
    const name = call.toolName.name;
    const tool = call.toolName.namespace === undefined ? this.tools.find((t) => t.name === name) : undefined;
    if (!tool) throw new CellToolError(`tool \`${name}\` is not enabled in exec`);
    const parsed = tool.parse(argumentsJson(name, call.input));
    if (!parsed.ok) throw new CellToolError(parsed.error);
    const base = this.#context;
    const toolCallId = `exec-${crypto.randomUUID()}`;
    const startedAtMs = BigInt(Date.now());
    const started = withIds(tool.startedCard(parsed.args, toolCallId), toolCallId, startedAtMs);
    base.emit(updates.toolCallStarted(toolCallId, base.modelCallId, started));
    const signal = AbortSignal.any([cellSignal, this.#ended.signal, this.runSignal]);
    // A round trip through the client like a direct call's, so it has its span, under the cell's call.
    const span = toolCallSpan(base.span, { name, id: toolCallId, requestId: base.requestId, conversationId: base.conversationId });
    let result: ToolResult;
    try {
      result = await untilAborted(tool.run(parsed.args, this.#nestedContext(base, toolCallId, signal, span)), signal);
    } catch (err) {
      span?.fail(errorTypeOf(err, signal.aborted));
      span?.end();
      this.channel.abortOpenExecs({ includeDetached: true, toolCallId });
      if (!this.runSignal.aborted) base.emit(updates.toolCallCompleted(toolCallId, base.modelCallId, started));
      throw callFailure(name, err, signal);
    }
    if (result.isError) span?.fail("tool_error");
    span?.end();
    this.channel.release(toolCallId);
    const card = withIds(result.card, toolCallId, startedAtMs, BigInt(Date.now()));
    base.emit(updates.toolCallCompleted(toolCallId, base.modelCallId, card));
    if (result.isError) throw new CellToolError(result.content);
    if (!result.images?.length) return result.content;
    return { text: result.content, images: result.images.map((image) => ({ image_url: dataUri(image) })) };
  }

  /**
   * The call's context: its own id and signal; its execs detached, so an interrupted
   * round does not abort them (the cell outlives rounds; its termination aborts them).
   */
  #nestedContext(base: ToolContext, toolCallId: string, signal: AbortSignal, span: SpanScope | undefined): ToolContext {
    const client = {
      exec: (args: Parameters<RequestChannel["exec"]>[0], options: Parameters<RequestChannel["exec"]>[1] = {}) =>
        this.channel.exec(args, { ...options, detached: true }),
      interaction: (query: Parameters<RequestChannel["interaction"]>[0]) => this.channel.interaction(query),
    };
    return { ...base, toolCallId, client, signal, span };
  }
}

/** Codex's rule: no argument is `{}`, an object is the arguments, anything else is refused. */
function argumentsJson(name: string, input: unknown): string {
  if (input === undefined) return "{}";
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new CellToolError(`tool \`${name}\` expects a JSON object for arguments`);
  }
  return JSON.stringify(input);
}

function callFailure(name: string, err: unknown, signal: AbortSignal): CellToolError {
  if (err instanceof CellToolError) return err;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof CellToolError ? reason : new CellToolError("code mode delegate request cancelled");
  }
  if (!isAbortError(err)) console.error("byok-edge: a code-mode tool call failed", name, errorKind(err));
  return new CellToolError(`The ${name} tool failed unexpectedly.`);
}
