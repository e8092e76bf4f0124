// AgentServerMessage ↔ Connect frames, and the small message builders the run
// uses. The only place that pairs generated schemas with envelopes.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AgentClientMessageSchema,
  AgentServerMessageSchema,
  InteractionUpdateSchema,
  type AgentClientMessage,
  type AgentServerMessage,
} from "./gen/agent/v1/agent_pb.ts";
import { encodeEnvelope, FLAG_MESSAGE } from "./connect/envelope.ts";

export function serverFrame(message: AgentServerMessage): Uint8Array {
  return encodeEnvelope(FLAG_MESSAGE, toBinary(AgentServerMessageSchema, message));
}

export function decodeClientMessage(bytes: Uint8Array): AgentClientMessage {
  return fromBinary(AgentClientMessageSchema, bytes);
}

type UpdateInit = MessageInitShape<typeof InteractionUpdateSchema>["message"];

/** An AgentServerMessage carrying one InteractionUpdate. */
export function interactionUpdate(update: UpdateInit): AgentServerMessage {
  return create(AgentServerMessageSchema, {
    message: { case: "interactionUpdate", value: create(InteractionUpdateSchema, { message: update }) },
  });
}

export const updates = {
  textDelta: (text: string) => interactionUpdate({ case: "textDelta", value: { text } }),
  // THINKING_STYLE_DEFAULT = 1, as the reference server sends.
  thinkingDelta: (text: string) => interactionUpdate({ case: "thinkingDelta", value: { text, thinkingStyle: 1 } }),
  thinkingCompleted: (durationMs: number) =>
    interactionUpdate({ case: "thinkingCompleted", value: { thinkingDurationMs: Math.max(1, Math.round(durationMs)) } }),
  tokenDelta: (tokens: number) => interactionUpdate({ case: "tokenDelta", value: { tokens } }),
  heartbeat: () => interactionUpdate({ case: "heartbeat", value: {} }),
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

export const HEARTBEAT_FRAME = serverFrame(updates.heartbeat());
