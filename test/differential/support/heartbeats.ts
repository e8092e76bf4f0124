// The targets ask for heartbeats on their long streams (except in the scenarios of a
// plain client), and no scenario ever sees one (docs/code-mode.md#leases): byok-edge
// under `wrangler dev` notices a client that left an idle stream only at a write, so
// its dropped leases, Executes and subscriptions show only with heartbeats. The
// reference ignores the header and never sends one; skipping them there changes nothing.
import type { ExecuteEvent, SessionEvent, ToolCall } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import type { Interceptor } from "@connectrpc/connect";
import { HEARTBEAT_HEADER, HEARTBEAT_METHODS, isHeartbeat } from "../../../src/code-mode/host/lease.ts";

type BeatMessage = SessionEvent | ExecuteEvent | ToolCall;

export const heartbeats: Interceptor = (next) => async (request) => {
  if (!HEARTBEAT_METHODS.has(request.method.name)) return next(request);
  request.header.set(HEARTBEAT_HEADER, "on");
  const response = await next(request);
  if (!response.stream) return response;
  return { ...response, message: withoutHeartbeats(response.message as AsyncIterable<BeatMessage>) } as typeof response;
};

async function* withoutHeartbeats(messages: AsyncIterable<BeatMessage>): AsyncIterable<BeatMessage> {
  for await (const message of messages) if (!isHeartbeat(message)) yield message;
}
