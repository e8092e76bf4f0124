// Publishes a checkpoint the way Cursor requires: every blob it newly references
// is set on the client and acknowledged first (bounded), then the checkpoint.
import type { AgentServerMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { checkpointUpdate } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import { buildCheckpoint, type CheckpointInput } from "./checkpoint.ts";
import { KvTimeoutError, type RequestChannel } from "./request-channel.ts";

/** Acknowledgement budget: 5 s, plus 0.5 s per blob and 2 s per MiB, at most 30 s. */
function blobAckTimeoutMs(blobCount: number, totalBytes: number): number {
  return Math.min(30_000, 5_000 + 500 * blobCount + 2_000 * (totalBytes / (1024 * 1024)));
}

export interface CheckpointDeps {
  store: ConversationStore;
  channel: RequestChannel;
  emit: (message: AgentServerMessage) => void;
}

/**
 * Builds a checkpoint and makes sure the client holds every blob it references;
 * returns the checkpoint message, ready to send.
 */
export async function prepareCheckpoint(deps: Omit<CheckpointDeps, "emit">, input: CheckpointInput): Promise<AgentServerMessage> {
  const built = await buildCheckpoint(input);
  const ids = [...built.blobs.keys()];
  const acked = deps.store.ackedBlobs(ids);
  const missing = [...built.blobs.entries()].filter(([id]) => !acked.has(id));
  if (missing.length > 0) {
    const bytes = missing.reduce((n, [, b]) => n + b.data.byteLength, 0);
    const timeout = blobAckTimeoutMs(missing.length, bytes);
    try {
      const replies = await Promise.all(
        missing.map(([, blob]) => deps.channel.kv({ case: "setBlobArgs", value: { blobId: blob.id, blobData: blob.data } }, timeout)),
      );
      const failed = replies.find((r) => r.message.case !== "setBlobResult" || r.message.value.error);
      if (failed) throw new AppError("data_loss", "the client could not store the conversation state");
    } catch (err) {
      if (err instanceof KvTimeoutError) {
        throw new AppError(
          "deadline_exceeded",
          `the client did not acknowledge ${missing.length} conversation state blob(s) within ${Math.round(timeout / 1000)} s`,
        );
      }
      throw err;
    }
    deps.store.markBlobsAcked(missing.map(([id]) => id));
  }
  return checkpointUpdate(built.state);
}
