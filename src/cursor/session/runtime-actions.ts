// ConversationActions that arrive on a live request (docs/protocol.md#interrupts):
// cancel, a new user message, injected context, cancelling one subagent. What
// happens to input is the run's decision (RunControl.offer); this file turns
// actions into offers and says the outcome to the client. Anything else is ignored.
import type { ConversationAction, InjectContextAction, UserMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import type { Injection } from "../agent/run-control.ts";
import type { AgentServerMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { RunHandle } from "./run-handle.ts";
import { contextSourceOf, type ContextSource } from "../context/context-source.ts";

export interface RuntimeActionContext {
  /** The request's live run, if it still takes actions. */
  run: RunHandle | undefined;
  requestId: string;
  /** Injection ids already rejected for naming another run (each is rejected once). */
  rejectedInjections: Set<string>;
  /** Writes a frame to the request's stream. */
  emit(message: AgentServerMessage): void;
  /** Where input goes that arrives after a run has stopped taking it. */
  queueForNextRun(injection: Injection): void;
}

export function applyRuntimeAction(ctx: RuntimeActionContext, action: ConversationAction): void {
  switch (action.action.case) {
    case "cancelAction":
      ctx.run?.cancel("cancelled by the user");
      return;
    case "userMessageAction": {
      const user = action.action.value.userMessage;
      const messageId = user?.messageId ?? "";
      const context = contextSourceOf(action);
      const injection: Injection = { id: `user-message:${messageId}`, messageId, text: user?.text ?? "", kind: "user" };
      offer(ctx, { ...injection, ...(context && { context }), ...imagesOf(user) }, true);
      return;
    }
    case "injectContextAction": {
      const inject = action.action.value;
      if (inject.expectedRunId === ctx.requestId) offer(ctx, injectionOf(inject, contextSourceOf(action)), false);
      else reject(ctx, inject);
      return;
    }
    case "cancelSubagentAction":
      ctx.run?.channel.abortToolCall(action.action.value.subagentId, "The subagent was cancelled by the user.");
      return;
    default:
      return;
  }
}

function offer(ctx: RuntimeActionContext, injection: Injection, stopsTools: boolean): void {
  const outcome = ctx.run?.control.offer(injection, { stopsTools }) ?? "queued";
  if (outcome === "injected") return;
  // The newer message stops the turn and opens the next one, as Cursor's own backend does.
  if (outcome === "interrupt") ctx.run?.cancel("interrupted by a newer user message");
  ctx.queueForNextRun(injection);
  ctx.emit(updates.injectionQueuedForNextTurn(injection.id));
}

/** An injection naming another run is rejected, once per injection id, with the reason. */
function reject(ctx: RuntimeActionContext, inject: InjectContextAction): void {
  if (ctx.rejectedInjections.has(inject.injectionId)) return;
  ctx.rejectedInjections.add(inject.injectionId);
  const reason = `InjectContextAction expected run ${inject.expectedRunId}, active run is ${ctx.requestId}`;
  ctx.emit(updates.injectionRejected(inject.injectionId, reason));
}

function injectionOf(inject: InjectContextAction, context: ContextSource | undefined): Injection {
  const payload = inject.payload;
  if (payload.case === "userContext") {
    const user = payload.value.userMessage;
    const messageId = user?.messageId ?? inject.injectionId;
    return { id: inject.injectionId, messageId, text: user?.text ?? "", kind: "user", ...(context && { context }), ...imagesOf(user) };
  }
  if (payload.case === "systemContext") {
    const { producer, content } = payload.value;
    return {
      id: inject.injectionId,
      messageId: inject.injectionId,
      text: `<system_context producer="${producer}">\n${content}\n</system_context>`,
      kind: "system",
    };
  }
  return { id: inject.injectionId, messageId: inject.injectionId, text: "", kind: "user" };
}

/** A user message's attached images, when it has any. */
function imagesOf(user: UserMessage | undefined): Pick<Injection, "images"> {
  const images = user?.selectedContext?.selectedImages ?? [];
  return images.length > 0 ? { images } : {};
}
