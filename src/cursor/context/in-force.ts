// The request context in force across runs (docs/request-context.md): the last
// one a run resolved is kept in the conversation's SQLite, so a run whose action
// carries none (a resume, a continuation, a later turn) keeps its tools, MCP
// tools and custom subagents instead of falling back to the defaults.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { RequestContextSchema, type RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../core/bytes.ts";
import type { ConversationStore } from "../store/conversation-store.ts";

/** The action's context, kept as the one in force; without one, the one kept last. */
export async function contextInForce(
  store: ConversationStore,
  conversationId: string,
  carried: RequestContext | undefined,
): Promise<RequestContext | undefined> {
  if (carried) {
    await keepContext(store, conversationId, carried);
    return carried;
  }
  const bytes = store.requestContext(conversationId);
  return bytes && fromBinary(RequestContextSchema, bytes);
}

/** Keeps `context` as the one in force (an injection's merged context, or the action's). */
export async function keepContext(store: ConversationStore, conversationId: string, context: RequestContext): Promise<void> {
  const bytes = toBinary(RequestContextSchema, context);
  const digest = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
  store.putRequestContext(conversationId, bytes, digest);
}
