// AgentServerMessage ↔ Connect frames, and a builder for every message the
// server sends. The only place that pairs generated schemas with envelopes.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AgentClientMessageSchema,
  AgentServerMessageSchema,
  type ContextInjectionStateSchema,
  InteractionUpdateSchema,
  type AgentClientMessage,
  type AgentServerMessage,
  type ConversationStateStructure,
  type ExecServerMessageSchema,
  type InteractionQuerySchema,
  type KvServerMessageSchema,
  type ToolCallDeltaSchema,
  type ToolCallSchema,
} from "./gen/agent/v1/agent_pb.ts";
import { encodeEnvelope, FLAG_MESSAGE } from "./connect/envelope.ts";

export function serverFrame(message: AgentServerMessage): Uint8Array {
  return encodeEnvelope(FLAG_MESSAGE, toBinary(AgentServerMessageSchema, message));
}

export function decodeClientMessage(bytes: Uint8Array): AgentClientMessage {
  return fromBinary(AgentClientMessageSchema, bytes);
}

type UpdateInit = MessageInitShape<typeof InteractionUpdateSchema>["message"];
type ToolCallInit = MessageInitShape<typeof ToolCallSchema>;
type ToolCallDeltaInit = MessageInitShape<typeof ToolCallDeltaSchema>["delta"];

/** An AgentServerMessage carrying one InteractionUpdate. */
function interactionUpdate(update: UpdateInit): AgentServerMessage {
  return create(AgentServerMessageSchema, {
    message: { case: "interactionUpdate", value: create(InteractionUpdateSchema, { message: update }) },
  });
}

export const updates = {
  textDelta: (text: string) => interactionUpdate({ case: "textDelta", value: { text } }),
  // THINKING_STYLE_DEFAULT (1); see docs/protocol.md#interaction-updates.
  thinkingDelta: (text: string) => interactionUpdate({ case: "thinkingDelta", value: { text, thinkingStyle: 1 } }),
  thinkingCompleted: (durationMs: number) =>
    interactionUpdate({ case: "thinkingCompleted", value: { thinkingDurationMs: Math.max(1, Math.round(durationMs)) } }),
  tokenDelta: (tokens: number) => interactionUpdate({ case: "tokenDelta", value: { tokens } }),
  heartbeat: () => interactionUpdate({ case: "heartbeat", value: {} }),
  /** The card of a call as the model streams it: the typed empty card first, then argument text. */
  partialToolCall: (callId: string, modelCallId: string, argsTextDelta: string, toolCall?: ToolCallInit) =>
    interactionUpdate({ case: "partialToolCall", value: { callId, argsTextDelta, modelCallId, ...(toolCall && { toolCall }) } }),
  toolCallStarted: (callId: string, modelCallId: string, toolCall: ToolCallInit) =>
    interactionUpdate({ case: "toolCallStarted", value: { callId, toolCall, modelCallId } }),
  toolCallCompleted: (callId: string, modelCallId: string, toolCall: ToolCallInit) =>
    interactionUpdate({ case: "toolCallCompleted", value: { callId, toolCall, modelCallId } }),
  /** Live output of a running call (shell output, edit content). */
  toolCallDelta: (callId: string, modelCallId: string, delta: ToolCallDeltaInit) =>
    interactionUpdate({ case: "toolCallDelta", value: { callId, modelCallId, toolCallDelta: { delta } } }),
  summaryStarted: () => interactionUpdate({ case: "summaryStarted", value: {} }),
  /** Where injected input stands: queued in this run, delivered, queued for the next run, or rejected. */
  injectionQueued: (injectionId: string) => injectionState(injectionId, { case: "queued", value: {} }),
  injectionDelivered: (injectionId: string, deliveryBatchId: string, deliveredAtMs: bigint) =>
    injectionState(injectionId, { case: "delivered", value: { step: 0, deliveryBatchId, deliveredAtMs } }),
  injectionQueuedForNextTurn: (injectionId: string) => injectionState(injectionId, { case: "queuedForNextTurn", value: {} }),
  injectionRejected: (injectionId: string, reason: string) => injectionState(injectionId, { case: "rejected", value: { reason } }),
  userMessageAppended: (text: string, messageId: string) =>
    interactionUpdate({ case: "userMessageAppended", value: { userMessage: { text, messageId } } }),
  summary: (summary: string) => interactionUpdate({ case: "summary", value: { summary } }),
  summaryCompleted: () => interactionUpdate({ case: "summaryCompleted", value: {} }),
  turnEnded: (usage: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    reasoningTokens: number;
  }) =>
    interactionUpdate({
      case: "turnEnded",
      value: {
        inputTokens: BigInt(usage.inputTokens),
        outputTokens: BigInt(usage.outputTokens),
        cacheReadTokens: BigInt(usage.cacheReadTokens),
        cacheWriteTokens: BigInt(usage.cacheWriteTokens),
        reasoningTokens: BigInt(usage.reasoningTokens),
      },
    }),
};

type InjectionStateInit = MessageInitShape<typeof ContextInjectionStateSchema>["state"];

function injectionState(injectionId: string, state: InjectionStateInit): AgentServerMessage {
  return interactionUpdate({ case: "contextInjectionState", value: { injectionId, state: { state } } });
}

export const HEARTBEAT_FRAME = serverFrame(updates.heartbeat());

/** exec_server_message: asks the client to run `args`; its replies carry the same id. */
export function execRequest(
  id: number,
  execId: string,
  args: MessageInitShape<typeof ExecServerMessageSchema>["message"],
  acceptHookAdditionalContexts?: boolean,
): AgentServerMessage {
  return create(AgentServerMessageSchema, {
    message: {
      case: "execServerMessage",
      value: { id, execId, message: args, ...(acceptHookAdditionalContexts !== undefined && { acceptHookAdditionalContexts }) },
    },
  });
}

/** exec_server_control_message.abort: stops an exec the client is still running. */
export function execAbort(id: number): AgentServerMessage {
  return create(AgentServerMessageSchema, {
    message: { case: "execServerControlMessage", value: { message: { case: "abort", value: { id } } } },
  });
}

/** interaction_query: asks the user something (approval, a question, a mode switch). */
export function interactionQuery(id: number, query: MessageInitShape<typeof InteractionQuerySchema>["query"]): AgentServerMessage {
  return create(AgentServerMessageSchema, { message: { case: "interactionQuery", value: { id, query } } });
}

/** kv_server_message: a get_blob or set_blob on the client's blob store. */
export function kvRequest(id: number, request: MessageInitShape<typeof KvServerMessageSchema>["message"]): AgentServerMessage {
  return create(AgentServerMessageSchema, { message: { case: "kvServerMessage", value: { id, message: request } } });
}

/** conversation_checkpoint_update: the client-held conversation state. */
export function checkpointUpdate(state: ConversationStateStructure): AgentServerMessage {
  return create(AgentServerMessageSchema, { message: { case: "conversationCheckpointUpdate", value: state } });
}
