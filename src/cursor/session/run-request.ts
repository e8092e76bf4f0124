// Reading a run_request: `planRun` turns it into the run's input (model, action,
// tools, the client's own copy of the conversation) or a clear error. Pure: it
// reads the catalogue and the stored conversation and changes nothing.
import type { AgentRunRequest, ConversationAction, UserMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../../core/errors.ts";
import { toHex } from "../../core/bytes.ts";
import type { RunAction, RunInput } from "../agent/run.ts";
import { subagentModelResolver } from "../agent/subagent-model.ts";
import { AGENT_TOOLS, offeredTools, SUBAGENT_TOOLS } from "../tools/index.ts";
import { contextSourceOf } from "../context/context-source.ts";
import { USER_TEXT_MAX_BYTES } from "../agent/message-limits.ts";
import type { ModelCatalog } from "../../hosting/config/byok-models.ts";
import { applyParameters, parseVariant } from "../catalog/model-parameters.ts";
import type { ModelConfig } from "../../provider/types.ts";
import type { SearchConfig } from "../search/search-types.ts";
import type { ConversationStore } from "../store/conversation-store.ts";

/** Everything a run needs that the run_request decides; the session adds the run's own handles. */
export type RunPlan = Omit<RunInput, "runId" | "signal" | "control" | "queued" | "contextTimeoutMs" | "compactionTimeoutMs"> & {
  principal: string;
  /** The principal's team (hosted users), kept on the run so that a restart can still record its usage. */
  teamId: string | null;
  /** A subagent's: the parent's request and Task call, where its trace hangs (docs/telemetry.md#traces). */
  parent?: { requestId: string; toolCallId: string };
  /** A subagent's run (x-parent-* headers or a subagent_type_name): its tools, and its span's name. */
  subagent: boolean;
};

export interface RunRequestContext {
  principal: string;
  teamId: string | null;
  requestId: string;
  conversationId: string;
  /** A subagent's request (it carries both x-parent-* headers). */
  isSubagent: boolean;
  /** For a subagent's request: the parent's request and the Task call that started it. */
  parent?: { requestId: string; toolCallId: string };
}

export function planRun(
  request: AgentRunRequest,
  context: RunRequestContext,
  catalog: ModelCatalog,
  store: ConversationStore,
  search: SearchConfig | undefined,
): { plan: RunPlan } | { error: AppError } {
  const model = resolveModel(request, catalog, store.conversation(context.conversationId)?.lastModel);
  if ("error" in model) return model;
  const action = runAction(request);
  if ("error" in action) return action;
  const subagent = context.isSubagent || !!request.subagentTypeName;
  const userAction = request.action?.action.case === "userMessageAction" ? request.action.action.value : undefined;
  const userMode = userAction?.userMessage?.mode;
  return {
    plan: {
      principal: context.principal,
      teamId: context.teamId,
      requestId: context.requestId,
      conversationId: context.conversationId,
      ...(context.parent && { parent: context.parent }),
      subagent,
      model: model.model,
      action: action.action,
      tools: offeredTools(subagent ? SUBAGENT_TOOLS : AGENT_TOOLS, { webSearch: search !== undefined }),
      search,
      state: { todos: [], mode: userMode || request.conversationState?.mode || 1 },
      ...clientState(request),
      ...requestContext(request),
      resolveSubagentModel: subagentModelResolver(
        model.model.name,
        catalog.models.map((m) => m.name),
        request.subagentModelOverrides,
        model.model.subagentModel,
      ),
    },
  };
}

/**
 * The next turn that a runtime user message starts in the continuation window: the request's
 * latest plan (model, tools, client state) with this message as its action.
 */
export function planContinuation(
  previous: RunPlan,
  action: ConversationAction,
  catalog: ModelCatalog,
): { plan: RunPlan } | { error: AppError } {
  const user = action.action.case === "userMessageAction" ? action.action.value.userMessage : undefined;
  const planned = userMessageAction(user);
  if ("error" in planned) return planned;
  // The conversation is stored by now: the client's copy is not needed again. The message's own
  // request context is the next turn's; without one the turn keeps the previous one (its tools).
  const { clientState: _recovered, context: previousContext, ...rest } = previous;
  const source = contextSourceOf(action);
  const context = source ? { source, prefetched: previousContext?.prefetched ?? new Map<string, Uint8Array>() } : previousContext;
  const state = { ...previous.state, mode: user?.mode || previous.state.mode };
  const model = withCurrentPersonalKey(previous.model, catalog);
  return { plan: { ...rest, model, action: planned.action, state, ...(context && { context }) } };
}

/**
 * A continuation runs with the personal key of the append that brought it, not the previous
 * run's: another token of the same user may hold none (docs/keys-at-rest.md#personal-keys).
 */
function withCurrentPersonalKey(model: ModelConfig, catalog: ModelCatalog): ModelConfig {
  const stored = model.storedKey;
  if (stored?.personalKeyId === undefined) return model;
  const { personalKey: _previous, ...rest } = stored;
  const current = catalog.models.find((m) => m.name === model.name)?.storedKey?.personalKey;
  return { ...model, storedKey: current ? { ...rest, personalKey: current } : rest };
}

/** The requested model (or the conversation's last one), with Cursor's parameters applied. */
function resolveModel(
  request: AgentRunRequest,
  catalog: ModelCatalog,
  lastModel: string | null | undefined,
): { model: ModelConfig } | { error: AppError } {
  const variant = parseVariant(request.requestedModel?.modelId || request.modelDetails?.modelId || lastModel || "");
  const requested = variant.name;
  if (!requested) return { error: new AppError("invalid_argument", "run_request names no model and the conversation has none yet") };
  const model = catalog.models.find((m) => m.name === requested);
  if (model) return { model: applyParameters(model, [...variant.parameters, ...(request.requestedModel?.parameters ?? [])]) };
  const problem = catalog.problems.get(requested);
  if (problem) return { error: new AppError("failed_precondition", problem) };
  const names = catalog.models.map((m) => m.name).join(", ") || "none";
  return { error: new AppError("not_found", `model "${requested}" is not configured (configured: ${names})`) };
}

/** Bytes the text takes in a stored row: JSON-escaped, UTF-8. */
function storedSize(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).byteLength;
}

/** What the run_request asks for: a user message, a resume or a summary; other actions are refused clearly. */
function runAction(request: AgentRunRequest): { action: RunAction } | { error: AppError } {
  const action = request.action?.action;
  switch (action?.case) {
    case "userMessageAction":
      return userMessageAction(action.value.userMessage);
    case "resumeAction":
      return { action: { kind: "resume" } };
    case "summarizeAction":
      return { action: { kind: "summarize" } };
    default:
      return { error: new AppError("unimplemented", `conversation action ${action?.case ?? "(none)"} is not supported yet`) };
  }
}

/** A user message as a run's action: its text (or text blob), its images, or `/summarize`. */
function userMessageAction(user: UserMessage | undefined): { action: RunAction } | { error: AppError } {
  if (user?.text.trim() === "/summarize") return { action: { kind: "summarize" } };
  if (storedSize(user?.text ?? "") > USER_TEXT_MAX_BYTES) {
    return { error: new AppError("invalid_argument", `the message is larger than ${USER_TEXT_MAX_BYTES / 1_000_000} MB`) };
  }
  return {
    action: {
      kind: "user_message",
      messageId: user?.messageId ?? "",
      text: user?.text ?? "",
      // Cursor moves a long message into a blob and sends its id instead of the text.
      ...(!user?.text && user?.textBlobId?.byteLength ? { textBlobId: user.textBlobId } : {}),
      ...(user?.selectedContext?.selectedImages.length && { images: user.selectedContext.selectedImages }),
    },
  };
}

/** The request context the action carries (docs/request-context.md), with the blobs pushed alongside. */
function requestContext(request: AgentRunRequest) {
  const source = contextSourceOf(request.action);
  if (!source) return {};
  return { context: { source, prefetched: new Map(request.preFetchedBlobs.map((b) => [toHex(b.id), b.value] as const)) } };
}

/** The client's own copy of the conversation, when it sent one with content. */
function clientState(request: AgentRunRequest) {
  const state = request.conversationState;
  if (!state || state.rootPromptMessagesJson.length === 0) return {};
  const prefetched = new Map(request.preFetchedBlobs.map((b) => [toHex(b.id), b.value] as const));
  return { clientState: { state, prefetched } };
}
