// Reading an exec's replies by the protocol's rules (docs/protocol.md#exec): an empty
// ExecClientMessage means "still working", a reply of another kind is a protocol
// fault, and stream_close or throw before a result ends the call with an error.
import type { ExecClientMessage, InteractionResponse } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ExecCall } from "./tool-types.ts";

const EXEC_CLOSED_EARLY = "Cursor Exec stream closed before returning a terminal result";

type ExecResultOneof = ExecClientMessage["message"];
export type ExecResultCase = NonNullable<ExecResultOneof["case"]>;
export type ExecResultOf<K extends ExecResultCase> = Extract<ExecResultOneof, { case: K }>["value"];

type InteractionOneof = InteractionResponse["result"];
export type InteractionCase = NonNullable<InteractionOneof["case"]>;
export type InteractionResultOf<K extends InteractionCase> = Extract<InteractionOneof, { case: K }>["value"];

export type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Waits for the next non-empty reply of kind `expected`. Shell calls it once per
 * stream event; the other tools once per exec. Aborts propagate as rejections.
 */
export async function nextReply<K extends ExecResultCase>(call: ExecCall, expected: K): Promise<Reply<ExecResultOf<K>>> {
  for (;;) {
    const event = await call.next();
    switch (event.kind) {
      case "stream_close":
        return { ok: false, error: EXEC_CLOSED_EARLY };
      case "throw":
        return { ok: false, error: `Cursor failed to run the tool: ${event.error || "unknown error"}` };
      case "message": {
        const reply = event.message.message;
        if (reply.case === undefined) continue;
        if (reply.case !== expected) {
          return { ok: false, error: `Cursor answered with ${reply.case} where ${expected} was expected` };
        }
        // The case check above is what makes this narrowing sound.
        return { ok: true, value: reply.value as ExecResultOf<K> };
      }
    }
  }
}

/** The same check for an interaction_response. */
export function interactionReply<K extends InteractionCase>(response: InteractionResponse, expected: K): Reply<InteractionResultOf<K>> {
  const result = response.result;
  if (result.case === undefined) return { ok: false, error: "Cursor returned an empty interaction response" };
  if (result.case !== expected) {
    return { ok: false, error: `Cursor answered with ${result.case} where ${expected} was expected` };
  }
  return { ok: true, value: result.value as InteractionResultOf<K> };
}
