// ConversationActions that arrive on a live request (spec §3.6): cancel, a new
// user message, injected context, cancelling one subagent. Anything else is
// ignored without failing the run.
import type { ConversationAction } from "../proto/gen/agent/v1/agent_pb.ts";
import { interactionUpdate, serverFrame } from "../proto/frames.ts";
import type { Injection } from "../agent/run-control.ts";
import type { Transport } from "./transport.ts";

export interface RuntimeActionContext {
  transport: Transport;
  /** Where work goes that arrives after a run has stopped taking input. */
  queueForNextRun(injection: Injection): void;
}

export function applyRuntimeAction(ctx: RuntimeActionContext, action: ConversationAction): void {
  const { transport } = ctx;
  // A run that is cancelled but not finished yet takes no more input.
  const run = transport.state.kind === "running" && !transport.state.run.cancelled ? transport.state.run : undefined;
  switch (action.action.case) {
    case "cancelAction":
      run?.cancel("cancelled by the user");
      return;
    case "userMessageAction": {
      const user = action.action.value.userMessage;
      const injection: Injection = {
        id: `user-message:${user?.messageId ?? ""}`,
        messageId: user?.messageId ?? "",
        text: user?.text ?? "",
        kind: "user",
      };
      if (!run || run.control.phase === "finishing") {
        queueForNextTurn(ctx, injection);
      } else if (run.control.phase === "tools") {
        // A newer message while tools run on the client stops the turn (the
        // reference's behaviour); the message itself opens the next one.
        run.cancel("interrupted by a newer user message");
        queueForNextTurn(ctx, injection);
      } else {
        run.control.inject(injection);
      }
      return;
    }
    case "injectContextAction": {
      const inject = action.action.value;
      if (inject.expectedRunId !== transport.requestId) {
        if (transport.rejectedInjections.has(inject.injectionId)) return; // rejected once per id
        transport.rejectedInjections.add(inject.injectionId);
        transport.outbox.push(
          serverFrame(
            interactionUpdate({
              case: "contextInjectionState",
              value: {
                injectionId: inject.injectionId,
                state: {
                  state: {
                    case: "rejected",
                    value: { reason: `InjectContextAction expected run ${inject.expectedRunId}, active run is ${transport.requestId}` },
                  },
                },
              },
            }),
          ),
        );
        return;
      }
      const injection = injectionOf(inject);
      if (!run || run.control.phase === "finishing") queueForNextTurn(ctx, injection);
      else run.control.inject(injection);
      return;
    }
    case "cancelSubagentAction":
      transport.channel?.abortToolCall(action.action.value.subagentId, "The subagent was cancelled by the user.");
      return;
    default:
      return;
  }
}

/** Late input is kept for the next run of the conversation, and the client is told so. */
function queueForNextTurn(ctx: RuntimeActionContext, injection: Injection): void {
  ctx.queueForNextRun(injection);
  ctx.transport.outbox.push(
    serverFrame(
      interactionUpdate({
        case: "contextInjectionState",
        value: { injectionId: injection.id, state: { state: { case: "queuedForNextTurn", value: {} } } },
      }),
    ),
  );
}

function injectionOf(inject: Extract<ConversationAction["action"], { case: "injectContextAction" }>["value"]): Injection {
  const payload = inject.payload;
  if (payload.case === "userContext") {
    const user = payload.value.userMessage;
    return { id: inject.injectionId, messageId: user?.messageId ?? inject.injectionId, text: user?.text ?? "", kind: "user" };
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
