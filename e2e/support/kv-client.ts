// The part of Cursor's client that a turn cannot finish without: the KV store.
// The server sets conversation-state blobs (set_blob) and waits for each
// acknowledgement before turn_ended; it may also read blobs back (get_blob).
import { create } from "@bufbuild/protobuf";
import { AgentClientMessageSchema, type AgentClientMessage, type AgentServerMessage } from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../src/core/bytes.ts";

export class KvClient {
  /** Blob id (hex) → bytes, as the server set them. */
  readonly blobs = new Map<string, Uint8Array>();

  /** The reply a Cursor client sends for this server message, if it needs one. */
  reply(message: AgentServerMessage): AgentClientMessage | undefined {
    if (message.message.case !== "kvServerMessage") return undefined;
    const kv = message.message.value;
    if (kv.message.case === "setBlobArgs") {
      this.blobs.set(toHex(kv.message.value.blobId), kv.message.value.blobData);
      return create(AgentClientMessageSchema, {
        message: { case: "kvClientMessage", value: { id: kv.id, message: { case: "setBlobResult", value: {} } } },
      });
    }
    if (kv.message.case === "getBlobArgs") {
      const data = this.blobs.get(toHex(kv.message.value.blobId));
      return create(AgentClientMessageSchema, {
        message: {
          case: "kvClientMessage",
          value: { id: kv.id, message: { case: "getBlobResult", value: data ? { blobData: data } : {} } },
        },
      });
    }
    return undefined;
  }
}
