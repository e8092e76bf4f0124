// One tool round: every call of one model response runs at once; each result is
// committed when it completes (completion order) and the round ends when all
// have. The stored history keeps the calls in their assistant message, so the
// next request regroups the round exactly as the model produced it.
import { create, toBinary } from "@bufbuild/protobuf";
import { ToolCallSchema, type AgentServerMessage, type ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import { isAbortError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { ToolCallPart } from "../../provider/types.ts";
import type { SearchConfig } from "../search/search-types.ts";
import type { RequestChannel } from "./request-channel.ts";
import type { Tool, ToolResult, ToolSessionState } from "../tools/tool-types.ts";
import { INTERRUPTED_TOOL_RESULT } from "./history-projection.ts";
import { getClientBlob } from "./client-blob.ts";
import type { SpanScope } from "../../telemetry/run-trace.ts";
import { errorTypeOf } from "./run-spans.ts";
import { toolCallSpan } from "../../telemetry/tool-spans.ts";

export interface RoundDeps {
  store: ConversationStore;
  channel: RequestChannel;
  emit: (message: AgentServerMessage) => void;
  /** Where each call's execute_tool span goes, when the run is traced (docs/telemetry.md#traces). */
  trace?: SpanScope;
}

export interface RoundInput {
  runId: string;
  requestId: string;
  conversationId: string;
  modelCallId: string;
  calls: ToolCallPart[];
  tools: readonly Tool[];
  state: ToolSessionState;
  /** Fires when the run is cancelled or an injection interrupts this round. */
  signal: AbortSignal;
  runSignal: AbortSignal;
  resolveSubagentModel(requested: string | undefined, subagentType: string): string;
  search?: SearchConfig;
  /** How long a tool waits for a blob of the client (get_blob). */
  blobTimeoutMs: number;
}

export async function runToolRound(deps: RoundDeps, input: RoundInput): Promise<void> {
  const finished = new Set<string>();
  const all = Promise.all(input.calls.map((call) => runOneCall(deps, input, call).then(() => finished.add(call.id))));
  // Calls left behind by an interruption settle later; their outcome is ignored.
  all.catch(() => {});
  const interrupted = new Promise<"interrupted">((resolve) => {
    if (input.signal.aborted) resolve("interrupted");
    input.signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
  });
  if ((await Promise.race([all.then(() => "done" as const), interrupted])) === "done") return;
  input.runSignal.throwIfAborted();
  // Interrupted by a newer user message: every unfinished call gets the synthetic
  // result before the new message, and its execs are aborted (Task execs go on).
  deps.channel.abortOpenExecs({ includeDetached: false });
  for (const call of input.calls) {
    if (finished.has(call.id)) continue;
    deps.store.appendMessages(input.conversationId, input.runId, [
      { message: { role: "tool", toolCallId: call.id, name: call.name, content: INTERRUPTED_TOOL_RESULT, isError: true } },
    ]);
    deps.emit(updates.toolCallCompleted(call.id, input.modelCallId, { toolCallId: call.id }));
  }
}

/** One call, in its execute_tool span: its id is fixed by the request and call, so a subagent the call starts hangs under it. */
async function runOneCall(deps: RoundDeps, input: RoundInput, call: ToolCallPart): Promise<void> {
  const span = toolCallSpan(deps.trace, { name: call.name, id: call.id, requestId: input.requestId, conversationId: input.conversationId });
  try {
    const failed = await runCall(deps, input, call, span);
    if (failed) span?.fail("tool_error");
  } catch (err) {
    span?.fail(errorTypeOf(err, input.signal.aborted));
    throw err;
  } finally {
    span?.end();
  }
}

/** Runs and records one call; true when its result is an error the model sees. */
async function runCall(deps: RoundDeps, input: RoundInput, call: ToolCallPart, span: SpanScope | undefined): Promise<boolean> {
  const tool = input.tools.find((t) => t.name === call.name);
  const startedAtMs = BigInt(Date.now());
  let result: ToolResult | { content: string; isError: true; card: undefined; images?: undefined };
  if (!tool) {
    result = {
      content: `Unknown tool "${call.name}". Use one of: ${input.tools.map((t) => t.name).join(", ")}.`,
      isError: true,
      card: undefined,
    };
  } else {
    const parsed = tool.parse(call.arguments || "{}");
    if (!parsed.ok) {
      result = { content: parsed.error, isError: true, card: withIds(tool.emptyCard(), call.id, startedAtMs) };
    } else {
      const started = withIds(tool.startedCard(parsed.args, call.id), call.id, startedAtMs);
      deps.emit(updates.toolCallStarted(call.id, input.modelCallId, started));
      try {
        result = await tool.run(parsed.args, {
          toolCallId: call.id,
          modelCallId: input.modelCallId,
          conversationId: input.conversationId,
          requestId: input.requestId,
          client: deps.channel,
          emit: deps.emit,
          signal: input.signal,
          state: input.state,
          resolveSubagentModel: input.resolveSubagentModel,
          search: input.search,
          readBlob: (id, what) => getClientBlob(deps.channel, id, input.blobTimeoutMs, what),
          span,
        });
      } catch (err) {
        // A stopped run keeps its execs open so they can be aborted on the client.
        if (input.signal.aborted || isAbortError(err)) throw err;
        console.error("byok-edge: tool failed", call.name, errorKind(err));
        result = { content: `The ${call.name} tool failed unexpectedly.`, isError: true, card: started };
      }
      deps.channel.release(call.id);
    }
  }
  input.signal.throwIfAborted();
  const card = result.card ? withIds(result.card, call.id, startedAtMs, BigInt(Date.now())) : undefined;
  deps.store.appendMessages(input.conversationId, input.runId, [
    {
      message: {
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: result.content,
        ...(result.isError && { isError: true }),
        ...(result.images?.length && { images: result.images }),
      },
      ...(card && { toolCard: cardForStorage(card) }),
    },
  ]);
  if (card) {
    // Without tool_call_completed the client's card spins forever.
    deps.emit(updates.toolCallCompleted(call.id, input.modelCallId, card));
  }
  return result.isError === true;
}

/** Stored cards stay far below the 2 MB row limit; an edit of a big file keeps its args, not both file copies. */
const STORED_CARD_MAX_BYTES = 256 * 1024;

function cardForStorage(card: ToolCall): Uint8Array | undefined {
  const bytes = toBinary(ToolCallSchema, card);
  if (bytes.byteLength <= STORED_CARD_MAX_BYTES) return bytes;
  const tool = card.tool.value as { result?: unknown } | undefined;
  if (!tool) return undefined;
  const slim = toBinary(
    ToolCallSchema,
    create(ToolCallSchema, { ...card, tool: { ...card.tool, value: { ...tool, result: undefined } } as ToolCall["tool"] }),
  );
  if (slim.byteLength <= STORED_CARD_MAX_BYTES) return slim;
  // Even the arguments are too big: keep the card's kind and ids so the step still shows.
  return toBinary(ToolCallSchema, create(ToolCallSchema, { ...card, tool: { case: card.tool.case, value: {} } as ToolCall["tool"] }));
}

export function withIds(card: ToolCall, toolCallId: string, startedAtMs: bigint, completedAtMs?: bigint): ToolCall {
  return create(ToolCallSchema, {
    ...card,
    toolCallId,
    startedAtMs,
    ...(completedAtMs !== undefined && { completedAtMs }),
  });
}
