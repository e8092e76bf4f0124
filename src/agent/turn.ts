// One agent turn: append the user's message to the history, call the model with
// the whole history, stream its answer, commit it, end with turn_ended.
import type { AgentServerMessage } from "../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../proto/frames.ts";
import type { AppError } from "../proto/connect/error.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import { addUsage, emptyUsage, type ChatMessage, type ModelConfig, type Provider, type Usage } from "../provider/types.ts";
import { callModel } from "./model-call.ts";
import { SYSTEM_PROMPT } from "./prompt.ts";
import { runFailure } from "./errors.ts";

export interface TurnInput {
  runId: string;
  conversationId: string;
  model: ModelConfig;
  /** Cursor's message id; the history keeps each message exactly once. */
  userMessageId: string;
  userText: string;
  signal: AbortSignal;
}

export interface TurnDeps {
  store: ConversationStore;
  provider: Provider;
  emit: (message: AgentServerMessage) => void;
}

export type TurnOutcome =
  | { status: "completed"; usage: Usage }
  | { status: "cancelled"; usage: Usage }
  | { status: "failed"; usage: Usage; error: AppError };

export async function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnOutcome> {
  let usage = emptyUsage();
  try {
    appendUserInput(deps.store, input);
    const history = deps.store.history(input.conversationId).map((m) => m.message);
    const result = await callModel(deps, {
      runId: input.runId,
      conversationId: input.conversationId,
      model: input.model,
      messages: history,
      tools: [],
      signal: input.signal,
    });
    usage = addUsage(usage, result.usage);
    input.signal.throwIfAborted();
    deps.store.appendMessages(input.conversationId, input.runId, [{ message: result.assistant }]);
    deps.emit(updates.turnEnded(usage));
    return { status: "completed", usage };
  } catch (err) {
    if (input.signal.aborted) return { status: "cancelled", usage };
    const error = runFailure(err, input.model.name);
    if (error.code === "internal") console.error("byok-edge: run failed", input.runId, error.cause);
    return { status: "failed", usage, error };
  }
}

function appendUserInput(store: ConversationStore, input: TurnInput): void {
  const items: { message: ChatMessage; messageKey?: string }[] = [];
  if (store.history(input.conversationId).length === 0) {
    items.push({ message: { role: "system", content: SYSTEM_PROMPT }, messageKey: "system" });
  }
  items.push({
    message: { role: "user", content: input.userText },
    messageKey: `cursor:user:${input.userMessageId || input.runId}`,
  });
  store.appendMessages(input.conversationId, input.runId, items);
}
