// The client's own copy of the conversation (its conversation_state) wins where
// it can be matched with the stored history: a conversation this object never saw
// is rebuilt from it, and a copy the client cropped (the user edited or re-ran an
// earlier message, also in a run_request that replaces a live run) crops the
// stored history to it (docs/protocol.md#the-clients-copy).
import type { ConversationStateStructure } from "../../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../core/bytes.ts";
import type { ConversationStore, StoredMessage } from "../store/conversation-store.ts";
import type { RequestChannel } from "./request-channel.ts";
import { recoverHistory } from "./recovery.ts";
import { rootMessageBytes } from "./root-messages.ts";

export interface ClientCopy {
  state: ConversationStateStructure;
  prefetched: Map<string, Uint8Array>;
}

export async function followClientCopy(
  deps: { store: ConversationStore; channel: RequestChannel },
  input: { conversationId: string; runId: string; copy: ClientCopy; timeoutMs: number },
): Promise<void> {
  const { store } = deps;
  const live = store.history(input.conversationId);
  if (live.length === 0) {
    const recovered = await recoverHistory(deps.channel, input.copy.state, input.copy.prefetched, input.timeoutMs);
    store.appendMessages(input.conversationId, input.runId, recovered);
    return;
  }
  const sent = store.conversation(input.conversationId)?.checkpointRoots ?? 0;
  const cut = await croppedAt(live, input.copy.state.rootPromptMessagesJson, sent);
  // Kept off the live branch, as an edit's branch is (docs/protocol.md#run-request).
  if (cut !== undefined) store.branchBefore(input.conversationId, cut.seq, input.runId);
}

/**
 * The first stored message the client's copy no longer holds, when the user cropped it: a prefix
 * of the stored history shorter than the last checkpoint sent (`sent` roots). A copy as long as
 * that checkpoint is in step, whatever was stored after it (a failed or refused turn, the results
 * a resumed round already has); a copy that differs otherwise (written by another backend, or by
 * another version of ours) leaves the history as it is too.
 */
async function croppedAt(live: readonly StoredMessage[], roots: readonly Uint8Array[], sent: number): Promise<StoredMessage | undefined> {
  if (roots.length === 0 || roots.length >= sent || roots.length >= live.length) return undefined;
  for (const [i, root] of roots.entries()) {
    const entry = live[i]!;
    const id = new Uint8Array(await crypto.subtle.digest("SHA-256", rootMessageBytes(entry.message, entry.messageKey)));
    if (toHex(id) !== toHex(root)) return undefined;
  }
  // Never between calls and their results: results the client's copy ends before are kept.
  return live.slice(roots.length).find((entry) => entry.message.role !== "tool");
}
