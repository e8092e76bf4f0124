// Continues a conversation this object has never seen (a new deployment, lost
// storage) from the client's own copy: the checkpoint's root messages, read from
// pre_fetched_blobs or fetched with KV get_blob.
import type { ConversationStateStructure } from "../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../proto/bytes.ts";
import { AppError } from "../proto/connect/error.ts";
import type { NewMessage } from "../store/conversation-store.ts";
import type { RequestChannel } from "./request-channel.ts";
import { fromRootMessage, type RootMessage } from "./root-messages.ts";

const BLOB_FETCH_TIMEOUT_MS = 15_000;

export async function recoverHistory(
  channel: RequestChannel,
  state: ConversationStateStructure,
  prefetched: Map<string, Uint8Array>,
): Promise<NewMessage[]> {
  const blobs = await Promise.all(
    state.rootPromptMessagesJson.map(async (id) => prefetched.get(toHex(id)) ?? (await fetchBlob(channel, id))),
  );
  const decoder = new TextDecoder();
  return blobs.flatMap((bytes) => {
    let root: RootMessage;
    try {
      root = JSON.parse(decoder.decode(bytes)) as RootMessage;
    } catch {
      throw new AppError("invalid_argument", "a conversation state message from the client is not valid JSON");
    }
    return fromRootMessage(root).map(({ message, key }) => (key ? { message, messageKey: key } : { message }));
  });
}

/** A text blob the client holds (a long message), from pre-fetched blobs or fetched with get_blob. */
export async function readClientBlob(
  channel: RequestChannel,
  id: Uint8Array,
  prefetched: Map<string, Uint8Array> | undefined,
): Promise<string> {
  return new TextDecoder().decode(await readClientBlobBytes(channel, id, prefetched));
}

/** A blob the client holds (a long message, an attached image), from pre-fetched blobs or fetched with get_blob. */
export async function readClientBlobBytes(
  channel: RequestChannel,
  id: Uint8Array,
  prefetched: Map<string, Uint8Array> | undefined,
): Promise<Uint8Array> {
  return prefetched?.get(toHex(id)) ?? (await fetchBlob(channel, id));
}

async function fetchBlob(channel: RequestChannel, id: Uint8Array): Promise<Uint8Array> {
  const reply = await channel.kv({ case: "getBlobArgs", value: { blobId: id } }, BLOB_FETCH_TIMEOUT_MS).catch((err: unknown) => {
    if (err instanceof Error && err.name === "KvTimeoutError") {
      throw new AppError("deadline_exceeded", "the client did not send a conversation state blob in time");
    }
    throw err;
  });
  const data = reply.message.case === "getBlobResult" ? reply.message.value.blobData : undefined;
  if (!data) throw new AppError("failed_precondition", `the client does not have conversation state blob ${toHex(id).slice(0, 12)}…`);
  return data;
}
