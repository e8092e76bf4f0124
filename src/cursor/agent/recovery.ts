// Continues a conversation this object has never seen (a new deployment, lost
// storage) from the client's own copy: the checkpoint's root messages, read from
// pre_fetched_blobs or fetched with KV get_blob.
import type { ConversationStateStructure } from "../../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../../core/errors.ts";
import type { NewMessage } from "../store/conversation-store.ts";
import { readClientBlob } from "./client-blob.ts";
import type { RequestChannel } from "./request-channel.ts";
import { fromRootMessage, parseRootMessage } from "./root-messages.ts";

export async function recoverHistory(
  channel: RequestChannel,
  state: ConversationStateStructure,
  prefetched: Map<string, Uint8Array>,
  timeoutMs: number,
): Promise<NewMessage[]> {
  const count = state.rootPromptMessagesJson.length;
  const blobs = await Promise.all(
    state.rootPromptMessagesJson.map((id, i) =>
      readClientBlob(channel, id, prefetched, timeoutMs, `message ${i + 1} of ${count} of the conversation state`),
    ),
  );
  const decoder = new TextDecoder();
  return blobs.flatMap((bytes, i) => {
    let json: unknown;
    try {
      json = JSON.parse(decoder.decode(bytes));
    } catch {
      throw new AppError("invalid_argument", "a conversation state message from the client is not valid JSON");
    }
    // The client's blobs can hold anything: a wrong shape is the client's error, not an internal one.
    const root = parseRootMessage(json);
    if (!root) throw new AppError("invalid_argument", `message ${i + 1} of ${count} of the conversation state is not a valid root message`);
    return fromRootMessage(root).map(({ message, key }) => (key ? { message, messageKey: key } : { message }));
  });
}
