// Where one execution's cell calls go (docs/code-mode.md#tool-calls): each tool
// call becomes a ToolCall on one matching subscription, with a fresh invocation id
// and the execution's next sequence number, and waits for its CompleteToolCall;
// a call the cell stops waiting for is announced as ToolCallCancelled on the lease.
// Notifications and the cell's closing go out on the lease.
import { create } from "@bufbuild/protobuf";
import type { CellDelegate } from "../engine/engine-types.ts";
import { type SessionEvent, SessionEventSchema, ToolCallSchema } from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { toolKindToProto, toolNameToProto } from "./convert.ts";
import type { EventQueue } from "./event-queue.ts";
import type { ToolInvocations } from "./invocations.ts";
import type { PendingNotifications } from "./notifications.ts";
import type { ToolSubscriptions } from "./subscriptions.ts";

const NO_SUBSCRIPTION = "no code-mode tool subscription matches the requested tool";

export interface SessionChannels {
  sessionId: string;
  lease: EventQueue<SessionEvent>;
  subscriptions: ToolSubscriptions;
  invocations: ToolInvocations;
  notifications: PendingNotifications;
}

export function executionDelegate(channels: SessionChannels, executionId: string): CellDelegate {
  const { lease, subscriptions, invocations, notifications } = channels;
  /** The last ToolCall.sequence issued for this execution (from 1). */
  let sequence = 0;
  const encoder = new TextEncoder();
  return {
    invokeTool(call, signal) {
      const subscription = subscriptions.route(call.toolName);
      if (!subscription) return Promise.reject(new Error(NO_SUBSCRIPTION));
      sequence += 1;
      const invocationId = crypto.randomUUID();
      subscription.pending.add(invocationId);
      // Pending until its completion is accepted (or dropped), not until the cell has it.
      const output = invocations.issue(invocationId, () => subscription.pending.delete(invocationId));
      signal.addEventListener(
        "abort",
        () => {
          if (!invocations.drop(invocationId)) return;
          lease.push(create(SessionEventSchema, { event: { case: "toolCallCancelled", value: { invocationId } } }));
        },
        { once: true },
      );
      subscription.calls.push(
        create(ToolCallSchema, {
          sessionId: channels.sessionId,
          executionId,
          cellId: call.cellId,
          invocationId,
          runtimeToolCallId: call.runtimeToolCallId,
          toolName: toolNameToProto(call.toolName),
          toolKind: toolKindToProto(call.toolKind),
          ...("input" in call && { inputJson: encoder.encode(JSON.stringify(call.input)) }),
          sequence: BigInt(sequence),
        }),
      );
      return output;
    },

    notify({ callId, cellId, text }, signal) {
      const notificationId = crypto.randomUUID();
      const event = create(SessionEventSchema, {
        event: { case: "notification", value: { notificationId, executionId, cellId, callId, text } },
      });
      if (!lease.push(event)) return Promise.resolve();
      return notifications.wait(notificationId, signal);
    },

    cellClosed(cellId) {
      lease.push(
        create(SessionEventSchema, {
          event: { case: "cellClosed", value: { executionId, cellId, finalToolCallSequence: BigInt(sequence) } },
        }),
      );
    },
  };
}
